/**
 * The delegation activities: send a message to a remote A2A agent, follow its task until it needs
 * this task (a question) or ends, and cancel it. Each heartbeats while it waits, so a canceled
 * calling task stops them, and fails on a network error to be retried with backoff (the task shows
 * the retries, src/worker/retry-reports.ts); a refusal by the remote agent, or a call that cannot
 * work at all, is not retried (src/delegation/remote-failures.ts).
 */
import { Message, SendMessageConfiguration, SendMessageRequest, Task, type SendMessageResult } from '@a2a-js/sdk';
import { TaskNotCancelableError } from '@a2a-js/sdk/errors';
import { Context } from '@temporalio/activity';
import { IDEMPOTENCY_KEY_HEADER } from '../protocol/contract.js';
import { type RemoteSendInput, type RemoteTaskInput, type RemoteTaskSnapshot } from '../protocol/delegation.js';
import type { PendingQuestion, QuestionHop } from '../protocol/question.js';
import { fromWireState, isSettled, isTerminal } from '../protocol/states.js';
import type { JsonObject, WireMessage, WirePart, WireTask } from '../protocol/wire.js';
import { remoteAgentClient, requestOptions } from '../delegation/remote-agents.js';
import { carried } from '../delegation/carried-results.js';

/** Polling a remote task: quick at first (an approval answered at once), then every few seconds. */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 4_000;

export async function sendToRemoteAgent(input: RemoteSendInput): Promise<RemoteTaskSnapshot> {
  const { name, client, pushes } = await remoteAgentClient(input);
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
  const push = pushConfigOf(input, pushes);
  request.configuration = SendMessageConfiguration.fromJSON({
    returnImmediately: true,
    ...(push && { taskPushNotificationConfig: push }),
  });
  const result = await client.sendMessage(
    request,
    requestOptions(input, Context.current().cancellationSignal, idempotencyHeaders(input)),
  );
  const snapshot = snapshotOf(name, result);
  return push ? { ...snapshot, pushing: true } : snapshot;
}

/**
 * The push config a first message carries, if the call asks for one. A remote agent whose card
 * says it does not push would refuse it: the call then follows the task as without one.
 */
export function pushConfigOf(input: Pick<RemoteSendInput, 'push'>, pushes: boolean) {
  const { push } = input;
  // Without a URL of its own, the call was given this gateway's (delegation-activities.ts).
  return push?.url && pushes ? { url: push.url, token: push.token } : undefined;
}

export function idempotencyHeaders(input: RemoteSendInput | { idempotencyKey?: string }): Record<string, string> {
  return input.idempotencyKey ? { [IDEMPOTENCY_KEY_HEADER]: input.idempotencyKey } : {};
}

/** The remote task as it is now (a push only says that it changed). */
export async function readRemoteTask(input: RemoteTaskInput): Promise<RemoteTaskSnapshot> {
  const { name, client } = await remoteAgentClient(input);
  const task = await client.getTask(getTaskParams(input), requestOptions(input, Context.current().cancellationSignal));
  return snapshotOf(name, task, input.finishedMarker);
}

/** GetTask's: the history only when a finished marker may be in it (a status may have replaced it). */
export function getTaskParams(input: { taskId: string; finishedMarker?: string }) {
  return { tenant: '', id: input.taskId, ...(!input.finishedMarker && { historyLength: 0 }) };
}

/** Polls until the task needs the calling task (a status other than `answeredStatus`) or has ended. */
export async function followRemoteTask(input: RemoteTaskInput): Promise<RemoteTaskSnapshot> {
  const { name, client } = await remoteAgentClient(input);
  const context = Context.current();
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, MAX_POLL_MS)) {
    const task = await client.getTask(getTaskParams(input), requestOptions(input, context.cancellationSignal));
    const snapshot = snapshotOf(name, task, input.finishedMarker);
    if (snapshot.finished || (isSettled(snapshot.state) && snapshot.statusKey !== input.answeredStatus))
      return snapshot;
    context.heartbeat({ state: snapshot.state });
    // Throws once the calling task cancels this activity (the heartbeat delivers the cancellation).
    await context.sleep(wait);
  }
}

/** Asks the remote agent to cancel, then follows the task until it has ended (canceled, or done anyway). */
export async function cancelRemoteTask(input: RemoteTaskInput): Promise<RemoteTaskSnapshot> {
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

/** The remote task as the call sees it; with a `finishedMarker`, an unfinished task may have answered. */
export function snapshotOf(agent: string, result: SendMessageResult, finishedMarker?: string): RemoteTaskSnapshot {
  if ('messageId' in result) {
    // A message and no task: the remote agent answered at once, and that is the outcome.
    const { parts, messageId } = Message.toJSON(result) as WireMessage;
    return carried(
      { agent, state: 'completed', statusKey: messageId, parts, text: textOf(parts), artifacts: [] },
      false,
    );
  }
  const task = Task.toJSON(result) as WireTask;
  const { status } = task;
  const parts = status.message?.parts ?? [];
  const metadata = task.metadata as { pendingQuestion?: PendingQuestion; artifactsOmitted?: unknown } | undefined;
  const pending = metadata?.pendingQuestion;
  const state = fromWireState(status.state) ?? 'working';
  const answer = finishedMarker && !isSettled(state) ? finishedAnswer(task, finishedMarker) : undefined;
  const snapshot: RemoteTaskSnapshot = {
    agent,
    taskId: task.id,
    contextId: task.contextId,
    state,
    // Not the message: an agent may move it into history and show the same status without it.
    statusKey: `${status.state} ${status.timestamp ?? status.message?.messageId ?? ''}`,
    parts: answer ?? parts,
    text: textOf(answer ?? parts),
    artifacts: task.artifacts ?? [],
    ...(pending && { question: questionOf(pending) }),
    ...(answer && { finished: true }),
  };
  return carried(snapshot, metadata?.artifactsOmitted === true);
}

/** The parts of the task's status message, or else its latest agent message in history, that carry the marker. */
function finishedAnswer(task: WireTask, marker: string): WirePart[] | undefined {
  const agentHistory = (task.history ?? []).filter((message) => message.role === 'ROLE_AGENT').reverse();
  const messages = [task.status.message, ...agentHistory];
  return messages.find((message) => message && textOf(message.parts).includes(marker))?.parts;
}

function questionOf(pending: PendingQuestion): RemoteTaskSnapshot['question'] {
  const { schema, expects, details, outOfBand } = pending;
  const [from, ...via] = [pending.from, ...(Array.isArray(pending.from?.via) ? pending.from.via : [])].map(hopOf);
  return {
    ...(schema && { schema: schema as JsonObject }),
    ...(expects && { expects }),
    ...(details && { details }),
    ...(outOfBand && { outOfBand }),
    // Carried up by the remote agent from one of its own (a chain): who asked, and through whom.
    ...(from && via.every((hop) => hop !== undefined) && { from: via.length > 0 ? { ...from, via } : from }),
  };
}

/** A hop as another agent's metadata names it, if it does so fully (it is shown, never followed). */
function hopOf(hop: Partial<QuestionHop> | undefined): QuestionHop | undefined {
  const { agent, taskId, url } = hop ?? {};
  return typeof agent === 'string' && typeof taskId === 'string' && typeof url === 'string'
    ? { agent, taskId, url }
    : undefined;
}

function textOf(parts: { text?: string }[]): string {
  return parts
    .map((part) => part.text)
    .filter((text): text is string => text !== undefined)
    .join('\n');
}
