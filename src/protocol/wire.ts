/**
 * The A2A v1.0 JSON wire shapes (proto3 JSON, camelCase) that task workflows keep and return.
 * The gateway turns them into SDK objects with the SDK's generated `fromJSON` helpers.
 * Pure module: no imports from Node or the SDK, so workflows can use it.
 */
import type { WireTaskState } from './states.js';

export type JsonObject = Record<string, unknown>;

/** Exactly one of text, raw (base64), url or data is set. */
export interface WirePart {
  text?: string;
  raw?: string;
  url?: string;
  data?: unknown;
  filename?: string;
  mediaType?: string;
  metadata?: JsonObject;
}

type WireRole = 'ROLE_USER' | 'ROLE_AGENT';

export interface WireMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: WireRole;
  parts: WirePart[];
  metadata?: JsonObject;
  referenceTaskIds?: string[];
  extensions?: string[];
}

export interface WireArtifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: WirePart[];
  metadata?: JsonObject;
}

export interface WireTaskStatus {
  state: WireTaskState;
  message?: WireMessage;
  timestamp: string;
}

export interface WireTask {
  id: string;
  contextId: string;
  status: WireTaskStatus;
  artifacts?: WireArtifact[];
  history?: WireMessage[];
  metadata?: JsonObject;
}

/** The text of every text part, joined by newlines. */
export function textOf(parts: readonly WirePart[]): string {
  return parts
    .filter((part) => typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The first data part's value, if any. */
export function dataOf(parts: readonly WirePart[]): unknown {
  return parts.find((part) => part.data !== undefined)?.data;
}
