/**
 * The four A2A push-config methods. Configs live in the task's workflow state (see
 * src/tasks/push-config-store.ts), so every gateway instance serves them. Every call reads the task
 * first as the caller: who may not see the task learns nothing of its configs, and who sees it
 * without owning it (an approver) may not manage them. Nobody reads a config's secrets back.
 */
import { randomUUID } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { Caller } from '../../protocol/caller.js';
import type { PushConfig, PushDeliveryState } from '../../protocol/push.js';
import { resolvedUrlProblem, type PushUrlPolicy } from '../../push/url-policy.js';
import type { TaskWorkflows } from '../../tasks/index.js';

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
    await this.readOwned(taskId, caller);
    return this.workflows.pushConfigs.set(taskId, { config, ...this.changedBy(caller) });
  }

  async list(taskId: string, caller: Caller | undefined): Promise<Array<PushConfig & PushDeliveryState>> {
    await this.readOwned(taskId, caller);
    return this.workflows.pushConfigs.list(taskId);
  }

  async get(taskId: string, id: string, caller: Caller | undefined): Promise<PushConfig & PushDeliveryState> {
    const config = (await this.list(taskId, caller)).find((c) => c.id === id);
    if (!config) throw new TaskNotFoundError(`Push notification config ${id} not found for task ${taskId}`);
    return config;
  }

  /** Deleting what is not there succeeds: a retried delete is not an error. */
  async remove(taskId: string, id: string, caller: Caller | undefined): Promise<void> {
    await this.readOwned(taskId, caller);
    await this.workflows.pushConfigs.remove(taskId, { id, ...this.changedBy(caller) });
  }

  /**
   * Reads the task as the caller, who must own it: an approver sees the task, but its webhooks (and
   * their credentials) are the owner's. The task's workflow checks the same on every change.
   */
  private async readOwned(taskId: string, caller: Caller | undefined): Promise<void> {
    const task = await this.workflows.read(taskId, caller);
    const owner = (task.metadata as { owner?: unknown } | undefined)?.owner;
    if (caller && typeof owner === 'string' && caller.id !== owner) throw notTheOwner(taskId);
  }

  /** Who changes a config, for the workflow's own check (as in IncomingMessage). */
  private changedBy(caller: Caller | undefined): { agent: string; caller?: Caller } {
    return { agent: this.workflows.agent, ...(caller && { caller }) };
  }
}

function notTheOwner(taskId: string): UnsupportedOperationError {
  return new UnsupportedOperationError(`Only the owner of task ${taskId} manages its push notification configs`);
}

/** What a secret of a stored config reads as: it was set, and stays in the workflow for deliveries. */
const REDACTED = '[redacted]';

/**
 * The wire form of a stored config (the delivery state stays out: A2A has no field for it). The
 * token and the credentials are redacted: they are for deliveries, and a read (by the owner, or by
 * anyone holding a leaked client credential) must not turn into a webhook's secrets.
 */
export function toSdkPushConfig(taskId: string, tenant: string, config: PushConfig): TaskPushNotificationConfig {
  const { authentication } = config;
  return {
    tenant,
    id: config.id,
    taskId,
    url: config.url,
    token: config.token ? REDACTED : '',
    authentication: authentication && {
      scheme: authentication.scheme,
      credentials: authentication.credentials ? REDACTED : '',
    },
  };
}
