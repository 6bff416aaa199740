/**
 * Shape and size checks for what arrives through updates. Operators type these arguments by hand
 * in the Temporal UI, so nothing may be assumed: a malformed argument must be refused by the
 * validator, never reach a handler and fail the workflow task. The gateway runs the same checks
 * before anything reaches Temporal, for every transport.
 */
import type { IncomingMessage } from './contract.js';
import type { WirePart } from './wire.js';

/** Temporal refuses payloads over 2 MB; a message and an artifact stay well below it. */
export const MAX_MESSAGE_BYTES = 512 * 1024;
export const MAX_ARTIFACT_BYTES = 512 * 1024;

/** Deepest nesting of objects and arrays in metadata and data parts; real documents stay far below it. */
export const MAX_NESTING_DEPTH = 64;

/** Ids become workflow IDs, update IDs and search attribute values (keywords): short identifiers only. */
export const MAX_ID_CHARS = 256;

const CONTENT_KEYS = ['text', 'raw', 'url', 'data'] as const;

/** With the `u` flag a surrogate half matches only when it is unpaired. */
const LONE_SURROGATE = /\p{Cs}/u;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field names in messages stay readable, whatever keys a client sends. */
const MAX_PATH_CHARS = 80;

/** `a.b[0].c`: how error messages name a field. */
export function fieldPath(path: readonly (string | number)[]): string {
  const text = path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');
  // Cut on a code point boundary: half a surrogate pair is not text that gRPC can send back.
  return text.length > MAX_PATH_CHARS ? `${text.slice(0, MAX_PATH_CHARS).replace(/[\uD800-\uDBFF]$/, '')}…` : text;
}

/**
 * What is wrong with a JSON value as a whole, if anything: nesting deeper than `maxDepth` objects
 * and arrays, or a string (value or key) that is not valid Unicode. Protobuf strings must be UTF-8,
 * so a lone surrogate cannot travel through Temporal. Walked with an explicit stack of the current
 * ancestry: hostile depth cannot overflow the call stack, and a huge flat array costs no memory.
 */
export function jsonProblem(value: unknown, name: string, maxDepth = MAX_NESTING_DEPTH): string | undefined {
  interface Frame {
    key: string | number;
    container: Record<string, unknown> | unknown[];
    /** Own keys of an object; arrays are walked by index. */
    keys?: string[];
    next: number;
  }
  const frames: Frame[] = [];
  const pathTo = (key?: string | number) =>
    fieldPath([...frames.map((frame) => frame.key), ...(key === undefined ? [] : [key])]);
  const visit = (inner: unknown, key: string | number): string | undefined => {
    if (typeof inner === 'string') {
      return LONE_SURROGATE.test(inner) ? `${pathTo(key)} is not valid Unicode (it has a lone surrogate)` : undefined;
    }
    if (typeof inner !== 'object' || inner === null) return undefined;
    if (frames.length >= maxDepth) return `${pathTo(key)} nests deeper than ${maxDepth} levels`;
    const container = inner as Frame['container'];
    frames.push({ key, container, next: 0, ...(!Array.isArray(container) && { keys: Object.keys(container) }) });
    return undefined;
  };
  let problem = visit(value, name);
  while (!problem && frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.next >= (frame.keys ?? (frame.container as unknown[])).length) {
      frames.pop();
      continue;
    }
    const index = frame.next++;
    if (!frame.keys) {
      problem = visit((frame.container as unknown[])[index], index);
      continue;
    }
    const key = frame.keys[index]!;
    // The parent is named: a key that is not valid Unicode cannot be echoed back.
    if (LONE_SURROGATE.test(key)) problem = `${pathTo()} has a key that is not valid Unicode (a lone surrogate)`;
    else problem = visit((frame.container as Record<string, unknown>)[key], key);
  }
  return problem;
}

/** What is wrong with an identifier (message, context, task or responder ID) named `name`, if anything. */
export function idProblem(value: unknown, name: string): string | undefined {
  if (typeof value !== 'string') return `${name} must be a string`;
  if (value.length > MAX_ID_CHARS) return `${name} is longer than ${MAX_ID_CHARS} characters`;
  // Temporal's stores refuse NUL in IDs and keywords, and retry until the call times out.
  if (value.includes('\0')) return `${name} must not contain NUL characters`;
  return jsonProblem(value, name);
}

/** The first problem of JSON values, named by their keys. */
function valuesProblem(values: Record<string, unknown>, prefix: string): string | undefined {
  for (const [key, value] of Object.entries(values)) {
    const problem = jsonProblem(value, `${prefix}${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** What is wrong with one part, if anything. */
function partProblem(part: unknown, index: number): string | undefined {
  const name = `parts[${index}]`;
  if (!isObject(part)) return `${name} must be an object`;
  const contents = CONTENT_KEYS.filter((key) => part[key] !== undefined);
  if (contents.length !== 1) return `${name} must have exactly one of text, raw, url, data`;
  for (const key of ['text', 'raw', 'url', 'filename', 'mediaType'] as const) {
    if (part[key] !== undefined && typeof part[key] !== 'string') return `${name}.${key} must be a string`;
  }
  if (part.metadata !== undefined && !isObject(part.metadata)) return `${name}.metadata must be an object`;
  return valuesProblem(part, `${name}.`);
}

/** What is wrong with a "message arrives" argument, if anything. */
export function messageProblem(incoming: unknown): string | undefined {
  if (!isObject(incoming)) return 'The argument must be an object such as {"text": "approve"}';
  for (const key of ['messageId', 'contextId', 'responder'] as const) {
    const problem = incoming[key] === undefined ? undefined : idProblem(incoming[key], key);
    if (problem) return problem;
  }
  if (incoming.text !== undefined && typeof incoming.text !== 'string') return 'text must be a string';
  if (incoming.referenceTaskIds !== undefined) {
    if (!Array.isArray(incoming.referenceTaskIds)) return 'referenceTaskIds must be an array';
    const problem = incoming.referenceTaskIds.map((id, i) => idProblem(id, `referenceTaskIds[${i}]`)).find(Boolean);
    if (problem) return problem;
  }
  if (incoming.parts !== undefined) {
    if (!Array.isArray(incoming.parts)) return 'parts must be an array';
    const problem = incoming.parts.map(partProblem).find(Boolean);
    if (problem) return problem;
  }
  if (incoming.metadata !== undefined && !isObject(incoming.metadata)) return 'metadata must be an object';
  // Checked before the size: measuring it serializes the message, which hostile depth would overflow.
  const { text, data, metadata } = incoming;
  return valuesProblem({ text, data, metadata }, '') ?? sizeProblem(incoming, MAX_MESSAGE_BYTES, 'The message');
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
