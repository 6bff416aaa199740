/**
 * `callAgent({ streaming: true })`: the remote task followed on an A2A stream. The first message goes
 * by SendStreamingMessage (with the call's Idempotency-Key), later follows by SubscribeToTask; the
 * remote artifacts' chunks are signalled to the calling task as they come (artifact-mirror.ts). A
 * stream that drops, or ends before the task needs us, is resumed with SubscribeToTask, never by
 * sending again: the task's ID is known from the stream's first event (and kept in the heartbeat,
 * so a retried attempt subscribes too). GetTask stays the truth of the state the call goes on with.
 * An agent whose card says it does not stream is sent to and polled as without `streaming`.
 */
import { SendMessageConfiguration, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import { Context } from '@temporalio/activity';
import { sleepUnlessAborted, withHeartbeats } from '../activity-helpers/heartbeat.js';
import type { RemoteStreamInput, RemoteTaskSnapshot } from '../protocol/delegation.js';
import { fromWireState, isSettled } from '../protocol/states.js';
import type { WireArtifact, WireMessage, WireTask, WireTaskStatus } from '../protocol/wire.js';
import { remoteAgentClient, requestOptions, type RemoteAgent } from '../delegation/remote-agents.js';
import { ArtifactMirror } from './artifact-mirror.js';
import {
  followRemoteTask,
  getTaskParams,
  idempotencyHeaders,
  pushConfigOf,
  sendToRemoteAgent,
  snapshotOf,
} from './remote-agents.js';

/** Between streams that ended without news: as the polling follow's pace (a stream per wait at most). */
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 4_000;

/** One stream event in its JSON form. */
interface StreamEvent {
  task?: WireTask;
  message?: WireMessage;
  statusUpdate?: { taskId: string; contextId?: string; status: WireTaskStatus };
  artifactUpdate?: { taskId: string; artifact: WireArtifact; append?: boolean; lastChunk?: boolean };
}

export async function streamRemoteTask(input: RemoteStreamInput): Promise<RemoteTaskSnapshot> {
  const remote = await remoteAgentClient(input);
  const context = Context.current();
  // A retried attempt follows the task its earlier attempt started: never a second send.
  const started = (context.info.heartbeatDetails as { taskId?: string } | undefined)?.taskId;
  let taskId = input.taskId ?? started;
  if (!remote.streams) {
    if (taskId) return followRemoteTask({ ...input, taskId });
    const sent = await sendToRemoteAgent({ ...input, messageId: input.messageId!, parts: input.parts! });
    return sent.taskId && !isSettled(sent.state) ? followRemoteTask({ ...input, taskId: sent.taskId }) : sent;
  }
  const { name, client } = remote;
  const workflowId = context.info.workflowExecution?.workflowId ?? '';
  const mirror = new ArtifactMirror(context.client.workflow.getHandle(workflowId), input.callId);
  /** The task as GetTask says, if it needs the calling task now (a status not the one just answered). */
  const settled = async (id: string) => {
    const task = await client.getTask(
      getTaskParams({ ...input, taskId: id }),
      requestOptions(input, context.cancellationSignal),
    );
    const snapshot = snapshotOf(name, task, input.finishedMarker);
    const needsUs = isSettled(snapshot.state) && snapshot.statusKey !== input.answeredStatus;
    if (!snapshot.finished && !needsUs) return undefined;
    // What the stream did not show (it dropped, or the task ended meanwhile) is this task's too.
    mirror.snapshot(id, snapshot.artifacts);
    return snapshot;
  };
  return withHeartbeats(
    async (signal) => {
      try {
        for (let wait = FIRST_RETRY_MS; ; wait = Math.min(wait * 2, MAX_RETRY_MS)) {
          const sending = taskId === undefined;
          let news = false;
          try {
            for await (const response of openStream(remote, input, taskId, signal)) {
              const event = StreamResponse.toJSON(response) as StreamEvent;
              // A message and no task: the remote agent answered at once, and that is the outcome.
              if (event.message) return snapshotOf(name, response.payload!.value as never);
              taskId ??= event.task?.id ?? event.statusUpdate?.taskId ?? event.artifactUpdate?.taskId;
              news = true;
              if (sending && input.resubscribe && taskId) break;
              if (event.task) mirror.snapshot(taskId!, event.task.artifacts ?? []);
              if (event.artifactUpdate) mirror.update(taskId!, event.artifactUpdate);
              const finished = finishedOn(name, event, input.finishedMarker);
              if (finished) return finished;
              const state = event.task?.status.state ?? event.statusUpdate?.status.state;
              const done = state && isSettled(fromWireState(state) ?? 'working') ? await settled(taskId!) : undefined;
              if (done) return done;
            }
          } catch (error) {
            // Dropped: resumed below, unless nothing named the task yet (the retried send finds it by its key).
            if (signal.aborted || taskId === undefined) throw error;
          }
          const done = await settled(taskId!);
          if (done) return done;
          if (news) wait = FIRST_RETRY_MS;
          else await sleepUnlessAborted(wait, signal);
        }
      } finally {
        await mirror.close();
      }
    },
    { details: () => ({ taskId }) },
  );
}

/** The task's answer, if this event shows its agent message with the finished marker (a status may soon replace it). */
function finishedOn(agent: string, event: StreamEvent, marker: string | undefined): RemoteTaskSnapshot | undefined {
  if (!marker) return undefined;
  const update = event.statusUpdate;
  const task =
    event.task ?? (update && { id: update.taskId, contextId: update.contextId ?? '', status: update.status });
  const snapshot = task && snapshotOf(agent, Task.fromJSON(task), marker);
  return snapshot?.finished ? snapshot : undefined;
}

/** The send's stream, or with the task known, a subscription to it. */
function openStream(
  { client, pushes }: RemoteAgent,
  input: RemoteStreamInput,
  taskId: string | undefined,
  signal: AbortSignal,
) {
  if (taskId) return client.resubscribeTask({ tenant: '', id: taskId }, requestOptions(input, signal));
  const request = SendMessageRequest.fromJSON({
    message: {
      messageId: input.messageId,
      role: 'ROLE_USER',
      parts: input.parts,
      ...(input.contextId && { contextId: input.contextId }),
      ...(input.metadata && { metadata: input.metadata }),
    },
  });
  const push = pushConfigOf(input, pushes);
  request.configuration = SendMessageConfiguration.fromJSON(push ? { taskPushNotificationConfig: push } : {});
  return client.sendMessageStream(request, requestOptions(input, signal, idempotencyHeaders(input)));
}
