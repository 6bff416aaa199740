/**
 * The ID of the Update that delivers a message to its task: the same message resent, by any gateway
 * or transport, is the same Update, which Temporal applies once.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from '../protocol/contract.js';
import type { JsonObject, WirePart } from '../protocol/wire.js';

/**
 * Update ID of a message: its messageId plus a digest of its parts. The same message resent is
 * applied once, even if the retry adds a contextId or tracing metadata, or comes by another
 * transport; a different message that reuses a messageId (real clients do) is a new update.
 */
export function updateIdFor(incoming: IncomingMessage): string {
  // The caller is part of it: Temporal answers a repeated update ID with the first outcome, unchecked.
  const content = JSON.stringify([(incoming.parts ?? []).map(canonicalPart), incoming.caller?.id ?? null]);
  const digest = createHash('sha256').update(content).digest('hex').slice(0, 32);
  return `${incoming.messageId ?? 'message'}:${digest}`;
}

/**
 * A part as A2A defines it rather than as one transport's decoding left it: objects in data and
 * metadata with their keys sorted (a protobuf Struct has no key order, gRPC clients send it in theirs,
 * Go's in a random one; JSON clients write keys in any), and no empty metadata (JSON clients may send
 * `{}` where gRPC ones send nothing). Empty filename and mediaType are already left out by
 * `Message.toJSON`, as proto3 leaves out defaults; the part's own keys come in toJSON's fixed order.
 */
function canonicalPart(part: WirePart): WirePart {
  const entries = Object.entries(part)
    .filter(([key, value]) => key !== 'metadata' || Object.keys(value as JsonObject).length > 0)
    .map(([key, value]) => [key, key === 'data' || key === 'metadata' ? sortedKeys(value) : value]);
  return Object.fromEntries(entries) as WirePart;
}

/** A JSON value with every object's keys in sorted order (nesting is bounded by the message checks). */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // fromEntries defines own properties: a "__proto__" key stays data.
  return Object.fromEntries(entries.map(([key, inner]) => [key, sortedKeys(inner)]));
}
