/**
 * Conversions between the workflow's v1.0 wire JSON and the SDK's generated objects, plus the
 * message digest that makes resent messages idempotent.
 */
import { createHash } from 'node:crypto';
import { Message, Role, StreamResponse, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { IncomingMessage, TaskEvent } from '../../protocol/contract.js';
import { idProblem } from '../../protocol/message-checks.js';
import { streamResponseOf } from '../../protocol/push.js';
import type { JsonObject, WireMessage, WirePart, WireTask } from '../../protocol/wire.js';

export function toSdkTask(task: WireTask, historyLength?: number): Task {
  return Task.fromJSON(withHistoryLength(task, historyLength));
}

/** historyLength: absent keeps all, 0 drops history, n keeps the n most recent messages. */
export function withHistoryLength(task: WireTask, historyLength: number | undefined): WireTask {
  if (historyLength === undefined || !task.history) return task;
  const { history, ...rest } = task;
  const kept = historyLength > 0 ? history.slice(-historyLength) : [];
  return kept.length > 0 ? { ...rest, history: kept } : rest;
}

export function withoutArtifacts(task: WireTask): WireTask {
  const { artifacts: _dropped, ...rest } = task;
  return rest;
}

export function toSdkMessage(message: WireMessage): Message {
  return Message.fromJSON(message);
}

export function taskStream(task: WireTask): StreamResponse {
  return StreamResponse.fromJSON({ task });
}

export function messageStream(message: WireMessage): StreamResponse {
  return StreamResponse.fromJSON({ message });
}

/**
 * One workflow event as a stream response (as webhooks receive it too). Built once per event: the
 * followers of a task share its feed's event objects, and a thousand of them need not convert the
 * same event a thousand times.
 */
export function eventStream(task: { id: string; contextId: string }, event: TaskEvent): StreamResponse {
  let response = streamedEvents.get(event);
  if (!response) {
    response =
      event.kind === 'message' ? messageStream(event.message) : StreamResponse.fromJSON(streamResponseOf(task, event));
    streamedEvents.set(event, response);
  }
  return response;
}

/** Each event's stream response, for as long as the event object lives (a task's events belong to that task). */
const streamedEvents = new WeakMap<TaskEvent, StreamResponse>();

/**
 * What is wrong with the fields of an SDK message that the update argument leaves out or reads
 * leniently, if anything. The HTTP transports check them in their request schema; on gRPC a missing
 * field is simply its zero value, so every transport is checked here too.
 */
function sdkMessageProblem(message: Message): string | undefined {
  if (!message.messageId) return 'message.messageId is required';
  if (message.role !== Role.ROLE_USER && message.role !== Role.ROLE_AGENT) {
    return 'message.role must be ROLE_USER or ROLE_AGENT';
  }
  return message.taskId ? idProblem(message.taskId, 'message.taskId') : undefined;
}

/** The SDK message as the workflow's "message arrives" update argument; RequestMalformed if it is not one. */
export function toIncoming(message: Message, responder: string | undefined): IncomingMessage {
  const problem = sdkMessageProblem(message);
  if (problem) throw new RequestMalformedError(problem);
  const wire = Message.toJSON(message) as Partial<WireMessage>;
  const incoming: IncomingMessage = { parts: (wire.parts ?? []) as WirePart[] };
  if (wire.messageId) incoming.messageId = wire.messageId;
  if (wire.contextId) incoming.contextId = wire.contextId;
  if (wire.metadata && Object.keys(wire.metadata).length > 0) incoming.metadata = wire.metadata as JsonObject;
  if (wire.referenceTaskIds?.length) incoming.referenceTaskIds = wire.referenceTaskIds;
  if (responder) incoming.responder = responder;
  return incoming;
}

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
