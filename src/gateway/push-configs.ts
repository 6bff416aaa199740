/**
 * The four A2A push-config methods over Temporal. Configs live in the task's workflow state (an
 * Update sets or deletes one, a query lists them), so every gateway instance serves them. Every
 * call reads the task first as the caller: who may not see the task learns nothing of its configs.
 * A finished task's workflow takes no Updates: configs created then go to a small workflow of
 * their own (see src/workflows/closed-task-push-configs.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  QueryNotRegisteredError,
  WithStartWorkflowOperation,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Caller } from '../protocol/contract.js';
import {
  deletePushConfigUpdate,
  pushConfigsQuery,
  setPushConfigUpdate,
  type PushConfig,
  type PushDeliveryState,
} from '../protocol/push.js';
import { resolvedUrlProblem, type PushUrlPolicy } from '../push/url-policy.js';
import {
  CLOSED_TASK_PUSH_CONFIGS_WORKFLOW,
  closedTaskPushConfigsWorkflowId,
} from '../workflows/closed-task-push-configs.js';
import { toA2AError } from './errors.js';
import { QUERY_DEADLINE_MS, type TaskReader } from './task-reader.js';

export class PushConfigs {
  constructor(
    private readonly client: Client,
    private readonly reader: TaskReader,
    private readonly agent: string,
    private readonly taskQueue: string,
    private readonly policy: PushUrlPolicy,
  ) {}

  /** A client's config, checked (SSRF guard) and given an ID when it has none. */
  async accept(config: Omit<TaskPushNotificationConfig, 'tenant' | 'taskId'>): Promise<PushConfig> {
    if (!config.url) throw new RequestMalformedError('A push notification config needs a url');
    const problem = await resolvedUrlProblem(config.url, this.policy);
    if (problem) throw new RequestMalformedError(problem);
    const { scheme, credentials } = config.authentication ?? {};
    return {
      id: config.id || randomUUID(),
      url: config.url,
      ...(config.token && { token: config.token }),
      ...(scheme && { authentication: { scheme, credentials: credentials ?? '' } }),
    };
  }

  async create(taskId: string, config: PushConfig, caller: Caller | undefined): Promise<PushConfig> {
    await this.reader.read(taskId, caller);
    const change = { config, agent: this.agent, ...(caller && { caller }) };
    try {
      return await this.reader.handle(taskId).executeUpdate(setPushConfigUpdate, { args: [change] });
    } catch (error) {
      if (!(toA2AError(error, taskId) instanceof TaskNotFoundError)) throw toA2AError(error, taskId);
    }
    // The task read above exists and is visible: its workflow has closed in the meantime or before.
    const operation = new WithStartWorkflowOperation(CLOSED_TASK_PUSH_CONFIGS_WORKFLOW, {
      workflowId: closedTaskPushConfigsWorkflowId(taskId),
      taskQueue: this.taskQueue,
      args: [],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return this.client.workflow.executeUpdateWithStart(setPushConfigUpdate, {
      args: [change],
      startWorkflowOperation: operation,
    });
  }

  async list(taskId: string, caller: Caller | undefined): Promise<Array<PushConfig & PushDeliveryState>> {
    await this.reader.read(taskId, caller);
    const [own, later] = await Promise.all([
      this.query(this.reader.handle(taskId), taskId),
      this.query(this.client.workflow.getHandle(closedTaskPushConfigsWorkflowId(taskId)), taskId),
    ]);
    return [...own.filter((config) => !later.some((c) => c.id === config.id)), ...later];
  }

  async get(taskId: string, id: string, caller: Caller | undefined): Promise<PushConfig & PushDeliveryState> {
    const config = (await this.list(taskId, caller)).find((c) => c.id === id);
    if (!config) throw new TaskNotFoundError(`Push notification config ${id} not found for task ${taskId}`);
    return config;
  }

  /** Deleting what is not there succeeds: a retried delete is not an error. */
  async delete(taskId: string, id: string, caller: Caller | undefined): Promise<void> {
    await this.reader.read(taskId, caller);
    const change = { id, agent: this.agent, ...(caller && { caller }) };
    for (const handle of [
      this.reader.handle(taskId),
      this.client.workflow.getHandle(closedTaskPushConfigsWorkflowId(taskId)),
    ]) {
      try {
        await handle.executeUpdate(deletePushConfigUpdate, { args: [change] });
      } catch (error) {
        if (!(toA2AError(error, taskId) instanceof TaskNotFoundError)) throw toA2AError(error, taskId);
      }
    }
  }

  /** A workflow's configs; none when it does not exist or predates push configs. */
  private async query(handle: WorkflowHandle, taskId: string): Promise<Array<PushConfig & PushDeliveryState>> {
    try {
      return await this.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(pushConfigsQuery));
    } catch (error) {
      const mapped = toA2AError(error, taskId);
      if (mapped instanceof TaskNotFoundError || error instanceof QueryNotRegisteredError) return [];
      throw mapped;
    }
  }
}

/** The wire form of a stored config (the delivery state stays out: A2A has no field for it). */
export function toSdkPushConfig(taskId: string, tenant: string, config: PushConfig): TaskPushNotificationConfig {
  return {
    tenant,
    id: config.id,
    taskId,
    url: config.url,
    token: config.token ?? '',
    authentication: config.authentication,
  };
}
