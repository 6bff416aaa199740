/**
 * The four A2A push-config methods. Configs live in the task's workflow state (see
 * task-workflows/push-configs.ts), so every gateway instance serves them. Every call reads the task
 * first as the caller: who may not see the task learns nothing of its configs.
 */
import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { Caller } from '../protocol/contract.js';
import type { PushConfig, PushDeliveryState } from '../protocol/push.js';
import { resolvedUrlProblem, type PushUrlPolicy } from '../push/url-policy.js';
import type { TaskWorkflows } from './task-workflows/index.js';

export class PushConfigs {
  constructor(
    private readonly workflows: TaskWorkflows,
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
    await this.workflows.read(taskId, caller);
    return this.workflows.pushConfigs.set(taskId, { config, ...this.changedBy(caller) });
  }

  async list(taskId: string, caller: Caller | undefined): Promise<Array<PushConfig & PushDeliveryState>> {
    await this.workflows.read(taskId, caller);
    return this.workflows.pushConfigs.list(taskId);
  }

  async get(taskId: string, id: string, caller: Caller | undefined): Promise<PushConfig & PushDeliveryState> {
    const config = (await this.list(taskId, caller)).find((c) => c.id === id);
    if (!config) throw new TaskNotFoundError(`Push notification config ${id} not found for task ${taskId}`);
    return config;
  }

  /** Deleting what is not there succeeds: a retried delete is not an error. */
  async remove(taskId: string, id: string, caller: Caller | undefined): Promise<void> {
    await this.workflows.read(taskId, caller);
    await this.workflows.pushConfigs.remove(taskId, { id, ...this.changedBy(caller) });
  }

  /** Who changes a config, for the workflow's own check (as in IncomingMessage). */
  private changedBy(caller: Caller | undefined): { agent: string; caller?: Caller } {
    return { agent: this.workflows.agent, ...(caller && { caller }) };
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
