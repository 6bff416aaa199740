/**
 * A worker that starts nudges the blocked tasks of its task queue: tasks whose workflow task kept
 * failing on the code deployed before (gateway/task-workflows/blocked.ts). Temporal retries such a
 * workflow task with a growing gap (10, 14, 18, 28, 44 s ... measured), so a fixed worker would
 * otherwise wait for the next retry; a signal is a new event, on which Temporal schedules a workflow
 * task at once (measured: the task answerable ~1 s after the signal, against more than 40 s without).
 * The workflow has no handler for it: Temporal records it, the SDK buffers it, nothing else happens.
 * Only tasks the describe shows failing are signalled: the others' histories stay as they are.
 */
import type { NativeConnection } from '@temporalio/worker';
import { logger } from '../logging.js';
import { taskIdOfWorkflow } from '../protocol/contract.js';
import { AGENT_ATTRIBUTE } from '../protocol/search-attributes.js';

const log = logger.child({ component: 'worker' });

/** The signal that nudges a blocked task; the workflow has no handler for it. */
const UNBLOCK_SIGNAL = 'a2a-unblock';
/** At most this many running tasks are looked at (one visibility page), this many at a time. */
const MAX_TASKS = 1_000;
const CONCURRENT_DESCRIBES = 8;

/** Nudges the blocked tasks of `taskQueue`; a failure is logged (the worker runs on either way). */
export async function nudgeBlockedTasks(connection: NativeConnection, namespace: string, taskQueue: string) {
  try {
    await nudge(connection, namespace, taskQueue);
  } catch (error) {
    log.warn({ err: error, taskQueue }, 'could not look for blocked tasks to nudge');
  }
}

async function nudge(connection: NativeConnection, namespace: string, taskQueue: string): Promise<void> {
  const service = connection.workflowService;
  const { executions } = await service.listWorkflowExecutions({
    namespace,
    pageSize: MAX_TASKS,
    query: `TaskQueue = '${taskQueue.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running' AND ${AGENT_ATTRIBUTE.name} IS NOT NULL`,
  });
  const running = (executions ?? []).flatMap((row) => (row.execution ? [row.execution] : []));
  const nudged: string[] = [];
  for (let i = 0; i < running.length; i += CONCURRENT_DESCRIBES) {
    await Promise.all(
      running.slice(i, i + CONCURRENT_DESCRIBES).map(async (execution) => {
        const { pendingWorkflowTask } = await service.describeWorkflowExecution({ namespace, execution });
        if ((pendingWorkflowTask?.attempt ?? 0) <= 1) return;
        await service.signalWorkflowExecution({
          namespace,
          workflowExecution: { workflowId: execution.workflowId },
          signalName: UNBLOCK_SIGNAL,
          identity: 'a2a-temporal worker (nudging a blocked task)',
        });
        nudged.push(taskIdOfWorkflow(execution.workflowId!) ?? execution.workflowId!);
      }),
    );
  }
  if (nudged.length > 0) log.info({ taskQueue, tasks: nudged }, `nudged ${nudged.length} blocked task(s) to run now`);
}
