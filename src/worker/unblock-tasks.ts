/**
 * Unblocking tasks: a task whose workflow task keeps failing (src/tasks/blocked.ts) waits for
 * Temporal's next retry, whose gap grows (10, 14, 18, 28, 44 s ...), and neither a signal nor an
 * Update makes Temporal retry it sooner (measured). Resetting the workflow to the failed workflow
 * task does: the new run holds the whole history up to it (state, memo, search attributes, the
 * question, push configs: all recorded before it) and gets a fresh workflow task at once, which a
 * fixed worker takes in well under a second. The workflow ID stays (the gateway addresses tasks by
 * it); the run ID changes. Signals recorded after that point (an activity's retry report) are
 * applied again, as Temporal's reset does by default; an Update never reached the history of a
 * blocked run (its acceptance needs a completed workflow task), so none is applied twice, and one
 * Temporal held for the blocked run is dropped with it: its sender was refused and told to send it
 * again (blockedError).
 *
 * A worker unblocks its queue's tasks when it starts, before it polls, but only those whose failure
 * happened under another build than its own (the SDK's build ID is a hash of the workflow bundle,
 * or the Worker Versioning build ID): code that cannot continue a task would only fail it again, so
 * it is not reset again (once per failure, never in a loop). An attempt a worker may still hold
 * (the SDK reports only a workflow task's first failure and lets later attempts time out) is no
 * reason to wait: nothing of an uncompleted workflow task is in history, so the reset loses
 * nothing. The reset goes to a failure no completed workflow task follows, as read just before; a
 * fixed worker completing the retry in the milliseconds between would have its work done again on
 * the new run (the Updates and signals it took are reapplied). Older workers still polling may
 * take a reset task and fail it again: stop them first, or run `a2a-temporal tasks unblock --all`
 * once they are gone (it resets on demand, whatever the build).
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Runtime, type Worker } from '@temporalio/worker';
import { taskIdOfWorkflow, workflowIdForTask } from '../protocol/contract.js';
import { buildOfFailure, failingWorkflowTask, lastFailure, latestEvents, startedEventOf } from '../tasks/blocked.js';
import { quote } from '../tasks/visibility.js';
import { pinnedVersionOf } from '../deploy-check/open-tasks.js';
import { logger } from '../logging.js';
import { UNBLOCK_METRIC } from '../protocol/telemetry.js';

const log = logger.child({ component: 'unblock' });

/** Workers starting together look for blocked tasks up to this far apart (see unblockOnStart). */
const START_SPREAD_MS = 1_000;
/** Tasks described at a time while a queue is looked through. */
const DESCRIBES_AT_ONCE = 8;

export type Unblock =
  /** Reset: answerable again on the new run. `failedUnder`: the build its workflow task failed under, when Temporal recorded it. */
  | { taskId: string; outcome: 'unblocked'; runId: string; failedUnder?: string }
  /** Not blocked: no workflow task of it is failing. */
  | { taskId: string; outcome: 'not-blocked' }
  /** Left blocked: its workflow task failed under the build that would take it again. */
  | { taskId: string; outcome: 'same-build'; failedUnder: string };

export interface UnblockOptions {
  /** Who resets, for the Temporal UI and the logs (e.g. "worker 1234@host", "tasks unblock"). */
  by: string;
  /** Reset only tasks whose workflow task failed under another build than this one. */
  unlessFailedUnder?: string;
  /** Awaited once a task is seen blocked, before it is looked at again and reset (see unblockOnStart). */
  beforeReset?: () => Promise<void>;
}

/** Resets `taskId`'s workflow to its failed workflow task when it is blocked (and `options` allow). */
export async function unblockTask(client: Client, taskId: string, options: UnblockOptions): Promise<Unblock> {
  const description = await client.workflow.getHandle(workflowIdForTask(taskId)).describe();
  if (!failingWorkflowTask(description)) return { taskId, outcome: 'not-blocked' };
  if (options.beforeReset) {
    await options.beforeReset();
    return unblockTask(client, taskId, { ...options, beforeReset: undefined });
  }
  const events = await latestEvents(client, taskId, description.runId);
  const failed = lastFailure(events);
  const started = failed && startedEventOf(failed, events);
  if (!failed || !started) throw new Error(`Task ${taskId}: its history shows no failed workflow task to reset to`);
  const failedUnder = buildOfFailure(failed, events);
  if (failedUnder && failedUnder === options.unlessFailedUnder) {
    log.warn({ taskId, buildId: failedUnder }, 'task blocked: this build failed it too, left for a fix');
    return { taskId, outcome: 'same-build', failedUnder };
  }
  const { runId } = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId: description.workflowId, runId: description.runId },
    workflowTaskFinishEventId: failed.eventId,
    reason: `a2a-temporal: unblocked by ${options.by}: its workflow task failed${failedUnder ? ` under build ${failedUnder}` : ''}; the task goes on from there`,
    identity: options.by,
    // Required; Temporal does not dedupe resets by it (see unblockOnStart).
    requestId: randomUUID(),
  });
  log.info({ taskId, runId, failedUnder, by: options.by }, 'task unblocked');
  return { taskId, outcome: 'unblocked', runId: runId!, ...(failedUnder && { failedUnder }) };
}

/**
 * Unblocks the blocked tasks of `taskQueue`'s running workflows (one describe each, a few at a
 * time). Not only those Temporal flags in `TemporalReportedProblems`: it flags a task after 5
 * failures by default (the dev server after 1), a minute or more of retries, and a task blocked for
 * less would wait for Temporal's next retry instead of going on at once. Tasks pinned to a Worker Versioning version other than `runsVersion` are left to that
 * version's workers. Returns what became of each blocked task.
 */
export async function unblockQueue(
  client: Client,
  taskQueue: string,
  options: UnblockOptions & { runsVersion?: string },
): Promise<Unblock[]> {
  const rows = client.workflow.list({ query: `ExecutionStatus = 'Running' AND TaskQueue = ${quote(taskQueue)}` });
  const results: Unblock[] = [];
  const lane = async (tasks: AsyncIterator<WorkflowExecutionInfo>) => {
    for (let row = await tasks.next(); !row.done; row = await tasks.next()) {
      const taskId = taskIdOfWorkflow(row.value.workflowId);
      const pinnedTo = pinnedVersionOf(row.value);
      if (!taskId || (pinnedTo && pinnedTo !== options.runsVersion)) continue;
      const result = await unblockTask(client, taskId, options).catch((error: unknown) => {
        log.warn({ err: error, taskId }, 'could not unblock a task');
        return undefined;
      });
      if (result && result.outcome !== 'not-blocked') results.push(result);
    }
  };
  const tasks = rows[Symbol.asyncIterator]();
  await Promise.all(Array.from({ length: DESCRIBES_AT_ONCE }, () => lane(tasks)));
  return results;
}

/**
 * What a worker does as it starts, before it polls: unblocks its queue's tasks whose workflow task failed
 * under other code (a fix deployed), so they are answerable within a second or so, not at
 * Temporal's next retry. Counted in the worker's metrics; a failure to look is only logged.
 */
export async function unblockOnStart(worker: Worker): Promise<void> {
  const { client } = worker;
  if (!client) return;
  // Temporal does not make a second reset of the same run and event a no-op (measured: a second
  // run, the first one terminated), and replicas of a deployment often start at the same moment:
  // once one sees a blocked task, it pauses a random while and looks again, so that of replicas
  // looking together the later ones find the task going on (its new run, not failing).
  let spread: Promise<void> | undefined;
  const pause = () => (spread ??= sleep(Math.random() * START_SPREAD_MS));
  const { taskQueue, identity, buildId, workerDeploymentOptions } = worker.options;
  const version = workerDeploymentOptions?.version;
  try {
    const results = await unblockQueue(client, taskQueue, {
      by: `worker ${identity}`,
      beforeReset: pause,
      unlessFailedUnder: version?.buildId ?? buildId,
      ...(version && { runsVersion: `${version.deploymentName}:${version.buildId}` }),
    });
    const unblocked = results.filter((result) => result.outcome === 'unblocked').length;
    if (unblocked > 0) {
      Runtime.instance()
        .metricMeter.createCounter(UNBLOCK_METRIC, undefined, 'Blocked tasks a starting worker reset to go on')
        .add(unblocked, { taskQueue });
    }
  } catch (error) {
    log.warn({ err: error, taskQueue }, 'could not look for blocked tasks');
  }
}
