/**
 * Shape and size checks for what arrives through updates. Operators type these arguments by hand
 * in the Temporal UI, so nothing may be assumed: a malformed argument must be refused by the
 * validator, never reach a handler and fail the workflow task.
 */
import type { IncomingMessage } from './contract.js';
import type { WirePart } from './wire.js';

/** Temporal refuses payloads over 2 MB; a message and an artifact stay well below it. */
export const MAX_MESSAGE_BYTES = 512 * 1024;
export const MAX_ARTIFACT_BYTES = 512 * 1024;

const MAX_ID_CHARS = 256;
const CONTENT_KEYS = ['text', 'raw', 'url', 'data'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with one part, if anything. */
function partProblem(part: unknown, index: number): string | undefined {
  if (!isObject(part)) return `parts[${index}] must be an object`;
  const contents = CONTENT_KEYS.filter((key) => part[key] !== undefined);
  if (contents.length !== 1) return `parts[${index}] must have exactly one of text, raw, url, data`;
  for (const key of ['text', 'raw', 'url', 'filename', 'mediaType'] as const) {
    if (part[key] !== undefined && typeof part[key] !== 'string') return `parts[${index}].${key} must be a string`;
  }
  return undefined;
}

/** What is wrong with a "message arrives" argument, if anything. */
export function messageProblem(incoming: unknown): string | undefined {
  if (!isObject(incoming)) return 'The argument must be an object such as {"text": "approve"}';
  for (const key of ['text', 'messageId', 'contextId', 'responder'] as const) {
    if (incoming[key] !== undefined && typeof incoming[key] !== 'string') return `${key} must be a string`;
  }
  // These become search attribute values (keywords): short identifiers only.
  for (const key of ['contextId', 'responder'] as const) {
    const value = incoming[key];
    if (typeof value === 'string' && value.length > MAX_ID_CHARS)
      return `${key} is longer than ${MAX_ID_CHARS} characters`;
  }
  if (incoming.parts !== undefined) {
    if (!Array.isArray(incoming.parts)) return 'parts must be an array';
    const problem = incoming.parts.map(partProblem).find(Boolean);
    if (problem) return problem;
  }
  if (incoming.metadata !== undefined && !isObject(incoming.metadata)) return 'metadata must be an object';
  return sizeProblem(incoming, MAX_MESSAGE_BYTES, 'The message');
}

export function sizeProblem(value: unknown, limit: number, what: string): string | undefined {
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  return bytes > limit
    ? `${what} is ${bytes} bytes, over the ${limit} byte limit: send large content as a file URL`
    : undefined;
}

/** The parts of an incoming message: its own parts, or parts made from `text` and `data`. */
export function partsOf(incoming: IncomingMessage): WirePart[] {
  if (incoming.parts?.length) return incoming.parts;
  const parts: WirePart[] = [];
  if (incoming.text) parts.push({ text: incoming.text });
  if (incoming.data !== undefined) parts.push({ data: incoming.data });
  return parts;
}
