/**
 * An Update that a worker does not take up stays silent: Temporal holds it until a workflow task
 * runs it, and when the workflow task fails (the deployed code cannot continue the task) the first
 * Update waits ~20 s before Temporal refuses it with FAILED_PRECONDITION ("Workflow Task in failed
 * state"), as it refuses later ones. Both end here as a typed refusal: an Update still unanswered
 * after a moment is watched (a describe, at growing intervals, so a long blocking reply costs
 * little), and refused when the task turns out blocked or no worker can take it. Updates answered
 * within the first moment — nearly all — cost no call more.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import proto from '@temporalio/proto';
import { isWorkflowTaskFailedRefusal, NoWorkerError } from './errors.js';
import { logger } from '../logging.js';
import { blockedError, blockedMarker } from './blocked.js';
import { taskWorkflow } from './read.js';

const log = logger.child({ component: 'gateway' });
const { enums } = proto.temporal.api;

/** The first look, then every look after it twice as late, up to the longest gap. */
const FIRST_LOOK_MS = 1_000;
const LONGEST_GAP_MS = 10_000;
/**
 * How long a workflow task waits untaken before the missing worker is named. A live worker takes a
 * task of the task queue at once, but a task on the sticky queue of a worker that died (SIGKILL)
 * waits there for the SDK's stickyQueueScheduleToStartTimeout (10 s by default) before Temporal
 * schedules it anew on the task queue, with a new scheduled time: only a task untaken for longer
 * is surely where every live worker polls.
 */
const STICKY_QUEUE_TIMEOUT_MS = 10_000;
const UNTAKEN_MS = STICKY_QUEUE_TIMEOUT_MS + 2_000;

/**
 * Runs `update` (an Update of the task's workflow) and refuses it as soon as the task is seen
 * blocked or without a worker; a refusal of Temporal's for a failing workflow task becomes the
 * same TaskBlockedError. Other failures pass through as they are.
 */
export async function watchedUpdate<T>(
  client: Client,
  taskId: string,
  signal: AbortSignal,
  update: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = new AbortController();
  const forward = () => stop.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const refused = new Promise<never>((_, reject) => {
    const look = (gap: number) => {
      // Once the Update has settled (`stop` aborted in finally), a look still under way schedules no other.
      if (stop.signal.aborted) return;
      timer = setTimeout(() => {
        refusal(client, taskId).then(
          (error) => (error ? reject(error) : look(Math.min(gap * 2, LONGEST_GAP_MS))),
          // A look that failed says nothing: the Update goes on as it would have.
          (error: unknown) => log.debug({ err: error, taskId }, 'watching an Update failed'),
        );
      }, gap);
    };
    look(FIRST_LOOK_MS);
  });
  try {
    return await Promise.race([update(stop.signal), refused]);
  } catch (error) {
    if (!isWorkflowTaskFailedRefusal(error)) throw error;
    const description = await taskWorkflow(client, taskId).describe();
    // Temporal refused it as blocked; a describe that raced the fix still finds no marker: say so anyway.
    const marker = await blockedMarker(client, taskId, description);
    throw blockedError(
      taskId,
      marker ?? { reason: 'its workflow task failed', since: new Date().toISOString(), attempt: 2 },
    );
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', forward);
    stop.abort(); // the Update's own wait, when a refusal won the race
  }
}

/** Why the Update cannot go through now, or undefined while nothing says it cannot. */
async function refusal(client: Client, taskId: string): Promise<Error | undefined> {
  const description = await taskWorkflow(client, taskId).describe();
  const marker = await blockedMarker(client, taskId, description);
  if (marker) return blockedError(taskId, marker);
  const missing = await missingWorker(client, description);
  if (!missing) return undefined;
  log.warn({ taskId, agent: description.type, taskQueue: description.taskQueue }, missing);
  return new NoWorkerError(`${missing}: the message waits in Temporal; send it again once one runs (it applies once)`);
}

/**
 * "no worker is polling queue Y" when the task's workflow task has waited UNTAKEN_MS for a worker
 * and no worker polled the queue since it was scheduled (a live idle worker would have taken it at
 * once; busy ones polled since); for a task pinned to a Worker Versioning version, "no worker for
 * version X is running" when no worker of that version polled since. Undefined while a worker
 * could take the task.
 */
async function missingWorker(client: Client, description: WorkflowExecutionDescription): Promise<string | undefined> {
  const pending = description.raw.pendingWorkflowTask;
  const scheduled = millisOf(pending?.scheduledTime);
  if (!pending || pending.startedTime || scheduled === undefined || Date.now() - scheduled < UNTAKEN_MS) {
    return undefined;
  }
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: description.taskQueue, kind: enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  const pollingSince = (pollers ?? []).filter((poller) => (millisOf(poller.lastAccessTime) ?? 0) >= scheduled);
  const versioning = description.raw.workflowExecutionInfo?.versioningInfo;
  const pinned = versioning?.behavior === enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED;
  const version = versioning?.deploymentVersion;
  if (pinned && version?.buildId) {
    const ofVersion = pollingSince.some(
      ({ deploymentOptions }) =>
        deploymentOptions?.buildId === version.buildId && deploymentOptions?.deploymentName === version.deploymentName,
    );
    return ofVersion ? undefined : `no worker for version ${version.deploymentName}:${version.buildId} is running`;
  }
  return pollingSince.length > 0 ? undefined : `no worker is polling queue ${description.taskQueue}`;
}

function millisOf(
  time: { seconds?: Long | number | null; nanos?: number | null } | null | undefined,
): number | undefined {
  return time?.seconds == null ? undefined : Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}
