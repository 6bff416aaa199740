/**
 * The A2A v1.0 JSON wire shapes (proto3 JSON, camelCase) that task workflows keep and return.
 * The gateway turns them into SDK objects with the SDK's generated `fromJSON` helpers.
 * Pure module: no imports from Node or the SDK, so workflows can use it.
 */
import type { WireTaskState } from './states.js';

/** A JSON object: metadata, a DataPart's value, details of a question. */
export type JsonObject = Record<string, unknown>;

/** One part of an A2A message or artifact (A2A `Part`). Exactly one of text, raw (base64), url or data is set. */
export interface WirePart {
  /** A text part's text. */
  text?: string;
  /** A file part's content, base64. */
  raw?: string;
  /** A file part's URL. */
  url?: string;
  /** A data part's value. */
  data?: unknown;
  /** A file part's name. */
  filename?: string;
  /** The part's media type, e.g. `text/plain`. */
  mediaType?: string;
  /** The part's metadata. */
  metadata?: JsonObject;
}

/** Who wrote a message: the user (client) or the agent. */
export type WireRole = 'ROLE_USER' | 'ROLE_AGENT';

/** An A2A message, as proto3 JSON (A2A `Message`). */
export interface WireMessage {
  /** The message's ID, chosen by its sender. */
  messageId: string;
  /** The context (conversation) it belongs to. */
  contextId?: string;
  /** The task it belongs to. */
  taskId?: string;
  /** Who wrote it. */
  role: WireRole;
  /** Its content. */
  parts: WirePart[];
  /** Its metadata: `responder` names who answers on a gateway without authentication. */
  metadata?: JsonObject;
  /** Other tasks it refers to. */
  referenceTaskIds?: string[];
  /** The URIs of the A2A extensions it uses. */
  extensions?: string[];
}

/** An A2A artifact: an output of a task (A2A `Artifact`). */
export interface WireArtifact {
  /** Its ID, unique within the task. */
  artifactId: string;
  /** Its name. */
  name?: string;
  /** What it is. */
  description?: string;
  /** Its content. */
  parts: WirePart[];
  /** Its metadata. */
  metadata?: JsonObject;
}

/** Where a task stands (A2A `TaskStatus`). */
export interface WireTaskStatus {
  /** Its state, e.g. `TASK_STATE_INPUT_REQUIRED`; {@link stateOf} turns it into `input-required`. */
  state: WireTaskState;
  /** The status message: the question, the answer, the reason of a failure. */
  message?: WireMessage;
  /** When the task entered this status, ISO 8601. */
  timestamp: string;
}

/**
 * An A2A task, as proto3 JSON (A2A `Task`): what GetTask answers.
 *
 * @example
 * const task: WireTask = await env.agent('purchase-approval').send('Buy 3 monitors for 450 EUR');
 * expect(stateOf(task)).toBe('input-required');
 * expect(task.metadata?.pendingQuestion).toBeDefined();
 */
export interface WireTask {
  /** The task's ID. */
  id: string;
  /** The context (conversation) it belongs to. */
  contextId: string;
  /** Where it stands. */
  status: WireTaskStatus;
  /** Its outputs. */
  artifacts?: WireArtifact[];
  /** Its messages, oldest first. */
  history?: WireMessage[];
  /** What this runtime adds: `timeline`, `pendingQuestion`, `owner`, `usage`, `delegations`, ... */
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
