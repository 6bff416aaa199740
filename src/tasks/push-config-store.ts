/**
 * A task's push-notification configs, kept in workflow state: an Update sets or deletes one, a
 * query lists them. A finished task's workflow takes no Updates: configs created then go to a small
 * workflow of their own (see src/workflows/closed-task-push-configs.ts), whose configs win.
 * Nothing here checks who asks: callers read the task as the caller first.
 */
import {
  QueryNotRegisteredError,
  WithStartWorkflowOperation,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import {
  CLOSED_TASK_PUSH_CONFIGS_WORKFLOW,
  closedTaskPushConfigsWorkflowId,
  deletePushConfigUpdate,
  pushConfigsQuery,
  setPushConfigUpdate,
  type PushConfig,
  type PushConfigChange,
  type PushDeliveryState,
} from '../protocol/push.js';
import { temporalCall, toA2AError } from './errors.js';
import { taskWorkflow } from './read.js';

export class PushConfigStore {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly queryDeadlineMs: number,
  ) {}

  /** Saves a config in the task's workflow, or in the closed task's own when that has closed. */
  async set(taskId: string, change: PushConfigChange & { config: PushConfig }): Promise<PushConfig> {
    try {
      return await taskWorkflow(this.client, taskId).executeUpdate(setPushConfigUpdate, { args: [change] });
    } catch (error) {
      if (!(toA2AError(error, taskId) instanceof TaskNotFoundError)) throw toA2AError(error, taskId);
    }
    // The caller read the task, so it exists: its workflow has closed in the meantime or before.
    const operation = new WithStartWorkflowOperation(CLOSED_TASK_PUSH_CONFIGS_WORKFLOW, {
      workflowId: closedTaskPushConfigsWorkflowId(taskId),
      taskQueue: this.taskQueue,
      args: [],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return temporalCall(taskId, () =>
      this.client.workflow.executeUpdateWithStart(setPushConfigUpdate, {
        args: [change],
        startWorkflowOperation: operation,
      }),
    );
  }

  async list(taskId: string): Promise<Array<PushConfig & PushDeliveryState>> {
    const [own, later] = await Promise.all([
      this.query(taskWorkflow(this.client, taskId), taskId),
      this.query(this.closedTaskWorkflow(taskId), taskId),
    ]);
    return [...own.filter((config) => !later.some((c) => c.id === config.id)), ...later];
  }

  /** Deleting what is not there succeeds: a retried delete is not an error. */
  async remove(taskId: string, change: PushConfigChange & { id: string }): Promise<void> {
    for (const handle of [taskWorkflow(this.client, taskId), this.closedTaskWorkflow(taskId)]) {
      try {
        await handle.executeUpdate(deletePushConfigUpdate, { args: [change] });
      } catch (error) {
        if (!(toA2AError(error, taskId) instanceof TaskNotFoundError)) throw toA2AError(error, taskId);
      }
    }
  }

  private closedTaskWorkflow(taskId: string): WorkflowHandle {
    return this.client.workflow.getHandle(closedTaskPushConfigsWorkflowId(taskId));
  }

  /** A workflow's configs; none when it does not exist or predates push configs. */
  private async query(handle: WorkflowHandle, taskId: string): Promise<Array<PushConfig & PushDeliveryState>> {
    try {
      return await this.client.withDeadline(Date.now() + this.queryDeadlineMs, () => handle.query(pushConfigsQuery));
    } catch (error) {
      const mapped = toA2AError(error, taskId);
      if (mapped instanceof TaskNotFoundError || error instanceof QueryNotRegisteredError) return [];
      throw mapped;
    }
  }
}
