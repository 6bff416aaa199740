/**
 * The open tasks of a project's agents, as Temporal visibility lists them, with their histories.
 * Tasks waiting for an answer come first: a deploy strands them most surely (the answer arrives on
 * the new code, which must replay everything the old code recorded), and a sample should hold them.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { taskIdOfWorkflow } from '../protocol/contract.js';
import { TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { INTERRUPTED_STATES, TASK_STATES, type TaskStateName } from '../protocol/states.js';
import { quote } from '../tasks/visibility.js';
import type { TaskHistory } from './task-history.js';

export interface OpenTasksQuery {
  /** The agents whose tasks to read (their names are the workflow types). */
  agents: readonly string[];
  /** The task queue the project's workers poll: tasks elsewhere run on other code. */
  taskQueue: string;
  /** At most this many tasks (waiting ones first); all when absent. */
  sample?: number;
  /** Only the tasks waiting for an answer (input-required, auth-required). */
  waitingOnly?: boolean;
  /**
   * Tasks pinned to a worker version (Worker Versioning) never run on new code: they are not
   * replayed but counted here, by version ("shop-agents:v2").
   */
  pinned?: Map<string, number>;
}

/** Histories fetched ahead while earlier ones replay. */
const FETCH_AHEAD = 8;
const PAGE_SIZE = 200;

/** Each open task's history, waiting tasks first, fetched a few at a time. */
export async function* openTaskHistories(client: Client, query: OpenTasksQuery): AsyncGenerator<TaskHistory> {
  const pending: Promise<TaskHistory>[] = [];
  for await (const task of openTasks(client, query)) {
    const fetched = withHistory(client, task);
    // A fetch may fail while it waits its turn: its failure surfaces when its turn comes.
    fetched.catch(() => {});
    pending.push(fetched);
    if (pending.length >= FETCH_AHEAD) yield await pending.shift()!;
  }
  while (pending.length > 0) yield await pending.shift()!;
}

type OpenTask = Omit<TaskHistory, 'history'> & { runId: string };

/** The visibility query of the open tasks of `query`'s agents and task queue. */
function openTasksQuery(query: OpenTasksQuery): string {
  return [
    `ExecutionStatus = 'Running'`,
    `TaskQueue = ${quote(query.taskQueue)}`,
    `WorkflowType IN (${query.agents.map(quote).join(', ')})`,
  ].join(' AND ');
}

/** The visibility query of those open tasks that wait for an answer (e.g. to count them first). */
export function waitingTasksQuery(query: OpenTasksQuery): string {
  return `${openTasksQuery(query)} AND ${TASK_STATE_ATTRIBUTE.name} IN (${[...INTERRUPTED_STATES].map(quote).join(', ')})`;
}

/** The open tasks, waiting ones first, each once, up to the sample size. */
async function* openTasks(client: Client, query: OpenTasksQuery): AsyncGenerator<OpenTask> {
  const open = openTasksQuery(query);
  const waiting = waitingTasksQuery(query);
  const seen = new Set<string>();
  const limit = query.sample ?? Number.POSITIVE_INFINITY;
  let yielded = 0;
  // The second pass lists the waiting ones again (a visibility query cannot say "all but those"
  // for tasks whose state attribute is unset): they are skipped by ID.
  for (const listQuery of query.waitingOnly ? [waiting] : [waiting, open]) {
    for await (const row of client.workflow.list({ query: listQuery, pageSize: PAGE_SIZE })) {
      if (yielded >= limit) return;
      if (seen.has(row.workflowId)) continue;
      seen.add(row.workflowId);
      const pinnedTo = pinnedVersionOf(row);
      if (pinnedTo) query.pinned?.set(pinnedTo, (query.pinned.get(pinnedTo) ?? 0) + 1);
      else {
        yielded++;
        yield openTask(row);
      }
    }
  }
}

// Temporal's own search attributes of a versioned workflow (the list rows carry no versioningInfo).
const VERSIONING_BEHAVIOR = defineSearchAttributeKey('TemporalWorkflowVersioningBehavior', SearchAttributeType.KEYWORD);
const DEPLOYMENT_VERSION = defineSearchAttributeKey('TemporalWorkerDeploymentVersion', SearchAttributeType.KEYWORD);

/** The version a task is pinned to ("shop-agents:v2"), if it is. */
export function pinnedVersionOf(row: WorkflowExecutionInfo): string | undefined {
  if (row.typedSearchAttributes.get(VERSIONING_BEHAVIOR) !== 'Pinned') return undefined;
  return row.typedSearchAttributes.get(DEPLOYMENT_VERSION) ?? 'an unnamed version';
}

function openTask(row: WorkflowExecutionInfo): OpenTask {
  const state = stateOf(row.typedSearchAttributes.get(TASK_STATE_ATTRIBUTE));
  return {
    workflowId: row.workflowId,
    runId: row.runId,
    taskId: taskIdOfWorkflow(row.workflowId) ?? row.workflowId,
    agent: row.type,
    ...(state && { state }),
  };
}

function stateOf(value: string | undefined): TaskStateName | undefined {
  return TASK_STATES.find((state) => state === value);
}

async function withHistory(client: Client, task: OpenTask): Promise<TaskHistory> {
  const { runId, ...rest } = task;
  const history = await client.workflow.getHandle(task.workflowId, runId).fetchHistory();
  return { ...rest, history };
}
