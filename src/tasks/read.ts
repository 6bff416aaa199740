/**
 * Reads a task: by query while its workflow runs, and from the closed workflow (result, memo, or
 * status) once it has ended, so finished tasks are readable with no worker up.
 */
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import {
  FINAL_TASK_MEMO,
  mayAccessTask,
  SUMMARY_MEMO,
  snapshotQuery,
  taskQuery,
  workflowIdForTask,
  type TaskAudience,
  type TaskSnapshotView,
} from '../protocol/contract.js';
import type { Caller } from '../protocol/caller.js';
import {
  AGENT_ATTRIBUTE,
  CONTEXT_ID_ATTRIBUTE,
  OWNER_ATTRIBUTE,
  TASK_STATE_ATTRIBUTE,
} from '../protocol/search-attributes.js';
import { fromWireState, isTaskStateName, isTerminal, toWireState, type TaskStateName } from '../protocol/states.js';
import type { WireTask } from '../protocol/wire.js';
import type { A2AError } from '@a2a-js/sdk/errors';
import { blockedError, blockedMarker, type BlockedMarker } from './blocked.js';
import { isTemporalBusy, isUnavailable, taskNotFound, taskOfAnotherAgent, temporalCall, toA2AError } from './errors.js';

/** How long a read waits for a worker to answer its query. */
export const QUERY_DEADLINE_MS = 5_000;

/** The workflow of a task (whichever its current run). */
export function taskWorkflow(client: Client, taskId: string): WorkflowHandle {
  return client.workflow.getHandle(workflowIdForTask(taskId));
}

export class TaskReader {
  /** `agent`: tasks of other agents are not found through this one's endpoint. */
  constructor(
    private readonly client: Client,
    private readonly agent: string,
  ) {}

  /**
   * The task with its full history; TaskNotFound when no workflow has this task's ID, and when an
   * authenticated `caller` neither owns it nor may answer its question (A2A 1.0 section 13.1).
   */
  async read(taskId: string, caller?: Caller): Promise<WireTask> {
    return temporalCall(taskId, async () => {
      const handle = taskWorkflow(this.client, taskId);
      const description = await this.describeFor(handle, taskId, caller);
      const task = await this.readDescribed(handle, taskId, description);
      // Checked on the task itself too: the describe of a task whose first workflow task has not run cannot tell.
      if (!mayAccessTask(audienceOf(task, description), caller)) throw taskNotFound(taskId);
      return task;
    });
  }

  /**
   * TaskNotFound, after one describe, when no workflow has this task's ID or the describe already
   * shows that `caller` may not see the task: what a caller meets before a cancel (an Update) or a
   * subscription that the workflow would refuse only after a round trip to the worker. A reply pays
   * no describe: its Update is the one call an answer costs (TaskWorkflows.followUp).
   */
  async checkVisible(taskId: string, caller: Caller): Promise<void> {
    await temporalCall(taskId, () => this.describeFor(taskWorkflow(this.client, taskId), taskId, caller));
  }

  /**
   * The state a task ended in, and its final record when its workflow kept one (FINAL_TASK_MEMO),
   * from one describe: for an Update that Temporal refused as "not found", which it says of a closed
   * workflow as of a missing one. TaskNotFound as `read` gives it (another agent's task named to a
   * caller who may see it); undefined when the workflow still runs (the Update raced a new run).
   */
  async ended(taskId: string, caller?: Caller): Promise<{ state: TaskStateName; final?: WireTask } | undefined> {
    return temporalCall(taskId, async () => {
      const description = await this.describeFor(taskWorkflow(this.client, taskId), taskId, caller);
      const { name } = description.status;
      if (name === 'RUNNING' || name === 'CONTINUED_AS_NEW') return undefined;
      if (name === 'UNSPECIFIED' || name === 'UNKNOWN') throw taskNotFound(taskId);
      const final = description.memo?.[FINAL_TASK_MEMO] as WireTask | undefined;
      if (final) return { state: fromWireState(final.status.state) ?? 'failed', final };
      // The last state the task recorded, when it ended it; a workflow that died without ending it failed.
      const recorded = description.typedSearchAttributes.get(TASK_STATE_ATTRIBUTE) ?? '';
      if (isTaskStateName(recorded) && isTerminal(recorded)) return { state: recorded };
      return { state: name === 'CANCELLED' ? 'canceled' : name === 'COMPLETED' ? 'completed' : 'failed' };
    });
  }

  /**
   * Where a new subscriber starts, the same for every caller (check the caller against `audience`):
   * a running task's snapshot by one query; a closed workflow's task read with no worker needed
   * (it has ended, so there is nothing to subscribe to).
   */
  async subscribable(taskId: string): Promise<SubscribableTask> {
    return temporalCall(taskId, async () => {
      const handle = taskWorkflow(this.client, taskId);
      const description = await this.describeFor(handle, taskId, undefined);
      // Its snapshot query would only time out: refused at once, saying why.
      const blocked = await blockedMarker(this.client, taskId, description);
      if (blocked) throw blockedError(taskId, blocked, 'then subscribe again');
      const snapshot: TaskSnapshotView =
        // CONTINUED_AS_NEW: the describe raced a continue-as-new; the task runs on in the next run.
        description.status.name === 'RUNNING' || description.status.name === 'CONTINUED_AS_NEW'
          ? await this.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(snapshotQuery, {}))
          : { task: await this.readDescribed(handle, taskId, description), lastSeq: 0 };
      return {
        snapshot,
        audience: audienceOf(snapshot.task, description),
        // Read before the snapshot: a feed started from it reads again only once history grew past it.
        ...(description.status.name === 'RUNNING' && {
          readAt: { runId: description.runId, historyLength: description.historyLength },
        }),
      };
    });
  }

  /**
   * A task in `state` just after it accepted a message from the caller (so no agent or owner check
   * is needed): one that goes on or waits for input answers the query. A completed task's workflow
   * is ending with the task as its result: one call; one that still notifies webhooks (`notifying`)
   * stays open until they have the news, so it answers the query instead. A failed, rejected or canceled
   * task's workflow ends FAILED or CANCELED (no result) with the task in its memo: the describe
   * reads that memo, or finds the workflow still open and queries it.
   */
  async readAccepted(taskId: string, state: TaskStateName, notifying = false): Promise<WireTask> {
    if (isTerminal(state) && state !== 'completed') return this.read(taskId);
    return temporalCall(taskId, async () => {
      const handle = taskWorkflow(this.client, taskId);
      try {
        return state === 'completed' && !notifying
          ? ((await handle.result()) as WireTask)
          : await queryTask(this.client, handle);
      } catch {
        // No worker answered, or an operator's cancel or terminate raced the answer: read it the long way.
        return this.read(taskId);
      }
    });
  }

  /**
   * The workflow's description, or TaskNotFound when it is another agent's or the caller may not see
   * it. Decided here, before any query or result read, so that turning a stranger away costs one
   * describe, as a task that does not exist does (issue 29: the time of the answer told them apart).
   */
  private async describeFor(
    handle: WorkflowHandle,
    taskId: string,
    caller: Caller | undefined,
  ): Promise<WorkflowExecutionDescription> {
    const description = await handle.describe();
    const audience = describedAudience(description);
    if (description.type !== this.agent) throw anotherAgentsTask(taskId, description, audience, caller);
    if (audience && !mayAccessTask(audience, caller)) throw taskNotFound(taskId);
    return description;
  }

  private async readDescribed(
    handle: WorkflowHandle,
    taskId: string,
    description: WorkflowExecutionDescription,
  ): Promise<WireTask> {
    switch (description.status.name) {
      case 'RUNNING':
      case 'CONTINUED_AS_NEW': {
        // No query then: a worker that runs the broken code cannot answer it, and it would only time out.
        const blocked = await blockedMarker(this.client, taskId, description);
        return blocked
          ? this.blockedTask(taskId, description, blocked)
          : this.queryOrSummarize(handle, taskId, description);
      }
      case 'COMPLETED':
        return (await handle.result()) as WireTask;
      case 'UNSPECIFIED':
      case 'UNKNOWN':
        throw taskNotFound(taskId);
      default: {
        // A workflow that settled its task as failed, rejected or canceled ends FAILED or CANCELED
        // with the final task in its memo. One that died without settling it (terminated, timed
        // out, failed or canceled before a task existed) left none.
        const final = description.memo?.[FINAL_TASK_MEMO] as WireTask | undefined;
        const state = description.status.name === 'CANCELLED' ? 'canceled' : 'failed';
        return final ?? endedWithoutTask(taskId, description, state);
      }
    }
  }

  /**
   * A running task is read by query, which needs a worker. With none up (a deploy, an outage) the
   * query times out or is refused; the search attributes still tell the task's state: answer that.
   */
  private async queryOrSummarize(handle: WorkflowHandle, taskId: string, description: WorkflowExecutionDescription) {
    try {
      return await queryTask(this.client, handle);
    } catch (error) {
      // Temporal answered the describe just before: a failed query means no worker answered it,
      // unless Temporal itself is out of reach or busy, which the caller is told.
      if (isUnavailable(error) || isTemporalBusy(error)) throw toA2AError(error, taskId);
      return this.fromSearchAttributes(taskId, description, 'no worker answered; state from search attributes');
    }
  }

  /** The task as it last recorded itself (its summary memo: the question is there), marked blocked. */
  private blockedTask(taskId: string, description: WorkflowExecutionDescription, blocked: BlockedMarker): WireTask {
    const summary = description.memo?.[SUMMARY_MEMO] as WireTask | undefined;
    const task = summary ?? this.fromSearchAttributes(taskId, description, 'blocked; state from search attributes');
    return { ...task, metadata: { ...task.metadata, blocked: { ...blocked } } };
  }

  private fromSearchAttributes(taskId: string, description: WorkflowExecutionDescription, why: string): WireTask {
    const named = description.typedSearchAttributes.get(TASK_STATE_ATTRIBUTE) ?? '';
    const state = isTaskStateName(named) ? named : 'submitted';
    return {
      id: taskId,
      contextId: description.typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE) ?? '',
      status: { state: toWireState(state), timestamp: description.startTime.toISOString() },
      metadata: { agent: this.agent, summaryOnly: why },
    };
  }
}

/** A subscriber's starting point, and who may see it. */
export interface SubscribableTask {
  snapshot: TaskSnapshotView;
  audience: TaskAudience;
  /** Where the workflow's history stood just before the snapshot was read (running tasks only). */
  readAt?: HistoryPosition;
}

/** A run and how many history events it had. */
export interface HistoryPosition {
  runId: string;
  historyLength: number;
}

/** Who may see a task. The owner comes from the search attribute: it is there even when the task is only summarized. */
function audienceOf(task: WireTask, description: WorkflowExecutionDescription): TaskAudience {
  return {
    ...(task.metadata as TaskAudience | undefined),
    owner: description.typedSearchAttributes.get(OWNER_ATTRIBUTE),
  };
}

/**
 * Who may see a task, as its describe alone tells: the summary memo the workflow rewrites at every
 * change (or a closed task's final memo). Undefined when the describe cannot tell: a task whose
 * first workflow task has not run yet; such a task is read, and the caller checked against it.
 */
function describedAudience(description: WorkflowExecutionDescription): TaskAudience | undefined {
  // Without an owner everyone sees the task (mayAccessTask), whatever the memo says.
  if (!description.typedSearchAttributes.get(OWNER_ATTRIBUTE)) return {};
  const task = (description.memo?.[SUMMARY_MEMO] ?? description.memo?.[FINAL_TASK_MEMO]) as WireTask | undefined;
  return task && audienceOf(task, description);
}

/**
 * A task of another agent: its agent is named only to a caller the describe shows may see the task
 * (a stranger learns nothing, as for a missing task), and only for an A2A task workflow (its agent
 * search attribute), never for some other workflow that happens to have the ID.
 */
function anotherAgentsTask(
  taskId: string,
  description: WorkflowExecutionDescription,
  audience: TaskAudience | undefined,
  caller: Caller | undefined,
): A2AError {
  const agent = description.typedSearchAttributes.get(AGENT_ATTRIBUTE);
  return agent && audience && mayAccessTask(audience, caller)
    ? taskOfAnotherAgent(taskId, agent)
    : taskNotFound(taskId);
}

/** The whole task of a running workflow, by query: a worker must answer within the read's deadline. */
export function queryTask(client: Client, handle: WorkflowHandle): Promise<WireTask> {
  return client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(taskQuery, {}));
}

/** A task whose workflow ended without leaving a final task behind. */
function endedWithoutTask(
  taskId: string,
  description: WorkflowExecutionDescription,
  state: 'failed' | 'canceled',
): WireTask {
  const contextId = description.typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE) ?? '';
  const text = state === 'failed' ? 'The task ended unexpectedly (its workflow was terminated or failed)' : 'Canceled';
  return {
    id: taskId,
    contextId,
    status: {
      state: state === 'failed' ? 'TASK_STATE_FAILED' : 'TASK_STATE_CANCELED',
      timestamp: (description.closeTime ?? new Date()).toISOString(),
      message: { messageId: `${taskId}-ended`, contextId, taskId, role: 'ROLE_AGENT', parts: [{ text }] },
    },
  };
}
