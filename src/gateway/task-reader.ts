/**
 * Reads a task from Temporal: by query while its workflow runs, and from the closed workflow
 * (result, memo, or status) once it has ended, so finished tasks are readable with no worker up.
 */
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import {
  FINAL_TASK_MEMO,
  mayAccessTask,
  taskQuery,
  workflowIdForTask,
  type Caller,
  type TaskAudience,
} from '../protocol/contract.js';
import { CONTEXT_ID_ATTRIBUTE, OWNER_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { isTaskStateName, isTerminal, toWireState, type TaskStateName } from '../protocol/states.js';
import type { WireTask } from '../protocol/wire.js';
import { isUnavailable, taskNotFound, temporalCall } from './errors.js';

/** How long a read waits for a worker to answer its query. */
const QUERY_DEADLINE_MS = 5_000;

export class TaskReader {
  /** `agent`: tasks of other agents are not found through this one's endpoint. */
  constructor(
    private readonly client: Client,
    private readonly agent: string,
  ) {}

  handle(taskId: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowIdForTask(taskId));
  }

  /**
   * The task with its full history; TaskNotFound when no workflow has this task's ID, and when an
   * authenticated `caller` neither owns it nor may answer its question (A2A 1.0 section 13.1).
   */
  async read(taskId: string, caller?: Caller): Promise<WireTask> {
    return temporalCall(taskId, async () => {
      const handle = this.handle(taskId);
      const description = await handle.describe();
      if (description.type !== this.agent) throw taskNotFound(taskId);
      const task = await this.readDescribed(handle, taskId, description);
      // The owner from the search attribute: it is there even when the task itself is only summarized.
      const audience = {
        ...(task.metadata as TaskAudience | undefined),
        owner: description.typedSearchAttributes.get(OWNER_ATTRIBUTE),
      };
      if (!mayAccessTask(audience, caller)) throw taskNotFound(taskId);
      return task;
    });
  }

  /**
   * A task that just settled under a message the caller was allowed to send (so no agent or owner
   * check is needed): one call. A terminal task's workflow is ending with the task as its result; a
   * task waiting for input answers the query.
   */
  async readSettled(taskId: string, state: TaskStateName): Promise<WireTask> {
    return temporalCall(taskId, async () => {
      const handle = this.handle(taskId);
      try {
        if (!isTerminal(state)) {
          return await this.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(taskQuery, {}));
        }
        return (await handle.result()) as WireTask;
      } catch {
        // No worker answered, or an operator's cancel or terminate raced the answer: read it the long way.
        return this.read(taskId);
      }
    });
  }

  private async readDescribed(
    handle: WorkflowHandle,
    taskId: string,
    description: WorkflowExecutionDescription,
  ): Promise<WireTask> {
    switch (description.status.name) {
      case 'RUNNING':
      case 'CONTINUED_AS_NEW':
        return this.queryOrSummarize(handle, taskId, description);
      case 'COMPLETED':
        return (await handle.result()) as WireTask;
      case 'CANCELLED': {
        const final = description.memo?.[FINAL_TASK_MEMO] as WireTask | undefined;
        return final ?? this.ended(taskId, description.typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE), 'canceled');
      }
      case 'UNSPECIFIED':
      case 'UNKNOWN':
        throw taskNotFound(taskId);
      default:
        // FAILED, TERMINATED, TIMED_OUT: the workflow died without settling the task itself.
        return this.ended(
          taskId,
          description.typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE),
          'failed',
          description.closeTime,
        );
    }
  }

  /**
   * A running task is read by query, which needs a worker. With none up (a deploy, an outage) the
   * query times out or is refused; the search attributes still tell the task's state: answer that.
   */
  private async queryOrSummarize(handle: WorkflowHandle, taskId: string, description: WorkflowExecutionDescription) {
    try {
      return await this.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(taskQuery, {}));
    } catch (error) {
      // Temporal answered the describe just before: a failed query means no worker answered it.
      if (isUnavailable(error)) throw error;
      const named = description.typedSearchAttributes.get(TASK_STATE_ATTRIBUTE) ?? '';
      const state = isTaskStateName(named) ? named : 'submitted';
      const task: WireTask = {
        id: taskId,
        contextId: description.typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE) ?? '',
        status: { state: toWireState(state), timestamp: description.startTime.toISOString() },
        metadata: { agent: this.agent, summaryOnly: 'no worker answered; state from search attributes' },
      };
      return task;
    }
  }

  /** A task whose workflow ended without leaving a final task behind. */
  private ended(taskId: string, contextId: string | undefined, state: 'failed' | 'canceled', at?: Date): WireTask {
    const text =
      state === 'failed' ? 'The task ended unexpectedly (its workflow was terminated or failed)' : 'Canceled';
    return {
      id: taskId,
      contextId: contextId ?? '',
      status: {
        state: state === 'failed' ? 'TASK_STATE_FAILED' : 'TASK_STATE_CANCELED',
        timestamp: (at ?? new Date()).toISOString(),
        message: {
          messageId: `${taskId}-ended`,
          contextId: contextId ?? '',
          taskId,
          role: 'ROLE_AGENT',
          parts: [{ text }],
        },
      },
    };
  }
}
