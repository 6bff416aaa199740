/**
 * Conversions between the workflow's v1.0 wire JSON and the SDK's generated objects (the update ID
 * that makes resent messages idempotent is the door's: src/tasks/update-ids.ts).
 */
import { Message, Role, StreamResponse, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { IncomingMessage } from '../../protocol/contract.js';
import type { TaskEvent } from '../../protocol/task-events.js';
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
