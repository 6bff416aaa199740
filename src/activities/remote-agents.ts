/**
 * The delegation activities: send a message to a remote A2A agent, follow its task until it needs
 * this task (a question) or ends, and cancel it. Each heartbeats while it waits, so a canceled
 * calling task stops them, and fails on a network error to be retried with backoff (the task shows
 * the retries, src/worker/retry-reports.ts); a refusal by the remote agent is not retried.
 */
import { Message, SendMessageConfiguration, SendMessageRequest, Task, type SendMessageResult } from '@a2a-js/sdk';
import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { IDEMPOTENCY_KEY_HEADER, type PendingQuestion } from '../protocol/contract.js';
import {
  REMOTE_AGENT_REFUSED,
  REMOTE_CANCEL_ACTIVITY,
  REMOTE_FOLLOW_ACTIVITY,
  REMOTE_SEND_ACTIVITY,
  type RemoteSendInput,
  type RemoteTaskInput,
  type RemoteTaskSnapshot,
} from '../protocol/delegation.js';
import { fromWireState, isSettled, isTerminal } from '../protocol/states.js';
import type { JsonObject, WireMessage, WireTask } from '../protocol/wire.js';
import { remoteAgentClient, requestOptions } from '../delegation/remote-agents.js';

/** Polling a remote task: quick at first (an approval answered at once), then every few seconds. */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 4_000;

export function createDelegationActivities() {
  return {
    [REMOTE_SEND_ACTIVITY]: sendToRemoteAgent,
    [REMOTE_FOLLOW_ACTIVITY]: followRemoteTask,
    [REMOTE_CANCEL_ACTIVITY]: cancelRemoteTask,
  };
}

async function sendToRemoteAgent(input: RemoteSendInput): Promise<RemoteTaskSnapshot> {
  const { name, client } = await remoteAgentClient(input);
  const message: WireMessage = {
    messageId: input.messageId,
    role: 'ROLE_USER',
    parts: input.parts,
    ...(input.taskId && { taskId: input.taskId }),
    ...(input.contextId && { contextId: input.contextId }),
    ...(input.metadata && { metadata: input.metadata }),
  };
  const request = SendMessageRequest.fromJSON({ message });
  // The remote task is followed from here on (followRemoteTask), not inside one long request.
  request.configuration = SendMessageConfiguration.fromJSON({ returnImmediately: true });
  const headers: Record<string, string> = input.idempotencyKey
    ? { [IDEMPOTENCY_KEY_HEADER]: input.idempotencyKey }
    : {};
  const result = await refusalsFinal(() =>
    client.sendMessage(request, requestOptions(input, Context.current().cancellationSignal, headers)),
  );
  return snapshotOf(name, result);
}

async function followRemoteTask(input: RemoteTaskInput): Promise<RemoteTaskSnapshot> {
  const { name, client } = await remoteAgentClient(input);
  const context = Context.current();
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, MAX_POLL_MS)) {
    const task = await refusalsFinal(() =>
      client.getTask(
        { tenant: '', id: input.taskId, historyLength: 0 },
        requestOptions(input, context.cancellationSignal),
      ),
    );
    const snapshot = snapshotOf(name, task);
    if (isSettled(snapshot.state) && snapshot.statusKey !== input.answeredStatus) return snapshot;
    context.heartbeat({ state: snapshot.state });
    // Throws once the calling task cancels this activity (the heartbeat delivers the cancellation).
    await context.sleep(wait);
  }
}

/** Asks the remote agent to cancel, then follows the task until it has ended (canceled, or done anyway). */
async function cancelRemoteTask(input: RemoteTaskInput): Promise<RemoteTaskSnapshot> {
  const { name, client } = await remoteAgentClient(input);
  const signal = Context.current().cancellationSignal;
  const canceled = await client
    .cancelTask({ tenant: '', id: input.taskId, metadata: {} }, requestOptions(input, signal))
    .catch((error: unknown) => {
      // Not cancelable: it has ended already (or is about to); what it ended as is what counts.
      if (error instanceof TaskNotCancelableError) return undefined;
      throw error;
    });
  const snapshot = canceled && snapshotOf(name, canceled);
  return snapshot && isTerminal(snapshot.state) ? snapshot : followRemoteTask(input);
}

/** Answers that the same request will get again: not an outage, and not worth retrying. */
const REFUSALS = [
  TaskNotFoundError,
  TaskNotCancelableError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  RequestMalformedError,
];

/**
 * The remote agent said no: the call fails for good, saying what the agent said. Anything else
 * (unreachable, an internal error, an authentication refusal a rotated key may cure) is retried.
 */
async function refusalsFinal<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    const error = thrown instanceof Error && thrown.cause instanceof A2AError ? thrown.cause : thrown;
    if (REFUSALS.some((refusal) => error instanceof refusal)) {
      throw ApplicationFailure.nonRetryable((error as Error).message, REMOTE_AGENT_REFUSED);
    }
    throw thrown;
  }
}

function snapshotOf(agent: string, result: SendMessageResult): RemoteTaskSnapshot {
  if ('messageId' in result) {
    // A message and no task: the remote agent answered at once, and that is the outcome.
    const { parts, messageId } = Message.toJSON(result) as WireMessage;
    return { agent, state: 'completed', statusKey: messageId, parts, text: textOf(parts), artifacts: [] };
  }
  const task = Task.toJSON(result) as WireTask;
  const { status } = task;
  const parts = status.message?.parts ?? [];
  const pending = (task.metadata as { pendingQuestion?: PendingQuestion } | undefined)?.pendingQuestion;
  return {
    agent,
    taskId: task.id,
    contextId: task.contextId,
    state: fromWireState(status.state) ?? 'working',
    // Not the message: an agent may move it into history and show the same status without it.
    statusKey: `${status.state} ${status.timestamp ?? status.message?.messageId ?? ''}`,
    parts,
    text: textOf(parts),
    artifacts: task.artifacts ?? [],
    ...(pending && { question: questionOf(pending) }),
  };
}

function questionOf(pending: PendingQuestion): RemoteTaskSnapshot['question'] {
  const { schema, expects, details, outOfBand } = pending;
  return {
    ...(schema && { schema: schema as JsonObject }),
    ...(expects && { expects }),
    ...(details && { details }),
    ...(outOfBand && { outOfBand }),
  };
}

function textOf(parts: { text?: string }[]): string {
  return parts
    .map((part) => part.text)
    .filter((text): text is string => text !== undefined)
    .join('\n');
}
