/**
 * Push notifications between the gateway, the task workflow and the delivery activity: the stored
 * config, the updates and query that manage it, and the activity's input. Pure module (it runs in
 * the workflow sandbox too).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { TaskEvent } from './task-events.js';
import type { Caller } from './caller.js';
import type { TaskStateName } from './states.js';

/** A webhook as the client gave it (A2A TaskPushNotificationConfig without the task and tenant). */
export interface PushConfig {
  id: string;
  url: string;
  /** Sent back in X-A2A-Notification-Token so the receiver knows the notification is for it. */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials: string };
}

/** How deliveries to one config went: what `tasks show` and the push-config reads tell. */
export interface PushDeliveryState {
  delivered: number;
  lastSuccess?: string;
  lastFailure?: { at: string; reason: string };
}

/** A config's delivery state as `Task.metadata.pushNotifications` shows it (no token, no credentials). */
export interface PushDeliveryView extends PushDeliveryState {
  id: string;
  url: string;
  /** Notifications not yet delivered (the first may be under way). */
  pending: number;
}

/** A config in the task's state, with the notifications not yet delivered to it (oldest first). */
export interface StoredPushConfig extends PushDeliveryState {
  config: PushConfig;
  pending: TaskEvent[];
}

/** Which events an agent's tasks notify webhooks of; default every status change and every artifact. */
export interface PushEventSelection {
  /** The status changes notified, by the state entered. Default: every one. */
  states?: TaskStateName[];
  /** Whether artifact events are notified. Default true. */
  artifacts?: boolean;
}

export interface PushConfigChange {
  /** As in IncomingMessage: only who may access the task manages its webhooks. */
  caller?: Caller;
  agent?: string;
}

export const setPushConfigUpdate = defineUpdate<PushConfig, [PushConfigChange & { config: PushConfig }]>(
  'setPushConfig',
);
export const deletePushConfigUpdate = defineUpdate<void, [PushConfigChange & { id: string }]>('deletePushConfig');
/** The task's configs with their delivery state; the gateway checks access by reading the task first. */
export const pushConfigsQuery = defineQuery<Array<PushConfig & PushDeliveryState>>('pushConfigs');

/** The activity that posts one notification (registered by the agents plugin). */
export const PUSH_ACTIVITY = 'a2aDeliverPushNotification';
/** The activity's failure type for a URL it refuses (SSRF guard): retrying cannot help. */
export const PUSH_URL_REFUSED = 'PushUrlRefused';

export interface PushNotification {
  config: PushConfig;
  /** `<taskId>:<event seq>`, sent as X-A2A-Notification-Id so receivers drop retried duplicates. */
  notificationId: string;
  /** The A2A StreamResponse JSON (statusUpdate or artifactUpdate). */
  body: Record<string, unknown>;
}

export const NOTIFICATION_ID_HEADER = 'X-A2A-Notification-Id';
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

/** The StreamResponse JSON of one task event, as streams and webhooks carry it; undefined for direct messages. */
export function streamResponseOf(
  task: { id: string; contextId: string },
  event: TaskEvent,
): Record<string, unknown> | undefined {
  const ids = { taskId: task.id, contextId: task.contextId };
  switch (event.kind) {
    case 'status':
      return { statusUpdate: { ...ids, status: event.status } };
    case 'artifact':
      return {
        artifactUpdate: { ...ids, artifact: event.artifact, append: event.append, lastChunk: event.lastChunk },
      };
    case 'message':
      return undefined;
  }
}

/**
 * The workflow that keeps push configs created after a task's workflow closed
 * (src/workflows/closed-task-push-configs.ts): its type, a named export of the worker's bundle
 * beside the agents' dynamic workflow, and its ID per task.
 */
export const CLOSED_TASK_PUSH_CONFIGS_WORKFLOW = 'a2aClosedTaskPushConfigs';

export function closedTaskPushConfigsWorkflowId(taskId: string): string {
  return `a2a-push-configs-${taskId}`;
}
