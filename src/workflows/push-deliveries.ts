/**
 * Delivers a task's push notifications from inside its workflow, through the outbox (outbox.ts): one
 * lane per webhook config, lasting as long as the config, each notification sent after the one
 * before it was delivered or given up. The queues live in the task record, so they survive worker
 * restarts and continue-as-new. Tasks without configs schedule nothing and add nothing to their history.
 */
import { log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import {
  PUSH_ACTIVITY,
  PUSH_URL_REFUSED,
  streamResponseOf,
  type PushNotification,
  type StoredPushConfig,
} from '../protocol/push.js';
import type { TaskRecord } from './task-record.js';
import { deliveryOptions, Outbox, type Attempts, type Lane } from './outbox.js';
import { hasPatch, PATCH } from './task-patches.js';
import { uiText } from '../protocol/ui-text.js';

/**
 * The config's last notification was given up (a failure after its last success; a failure that
 * is still being retried is always followed by a success or a give-up before the next one starts).
 */
function lastGivenUp({ lastFailure, lastSuccess }: StoredPushConfig): boolean {
  return lastFailure !== undefined && (lastSuccess === undefined || lastFailure.at > lastSuccess);
}

type DeliverActivity = (notification: PushNotification) => Promise<void>;

/** A notification on its way, with the config as it was stored when the notification was taken up. */
interface Delivery {
  id: string;
  stored: Readonly<StoredPushConfig>;
  notification: PushNotification;
}

export class PushDeliveries {
  // The activity bounds each attempt to 10 s itself (see src/package-activities/push.ts); 15 s is the
  // backstop, and how soon an attempt lost with its worker is tried again.
  private readonly outbox = new Outbox(deliveryOptions('15 seconds', PUSH_URL_REFUSED));

  constructor(private readonly record: TaskRecord) {}

  /** Nothing queued and nothing under way: the workflow may end or continue as new. */
  get idle(): boolean {
    return !this.outbox.sending && this.record.pushConfigs.every((stored) => stored.pending.length === 0);
  }

  /** Follows every stored config (a continued run picks up the queues of the one before). */
  resume(): void {
    for (const stored of this.record.pushConfigs) this.follow(stored.config.id);
  }

  /** Starts the lane of a config unless it runs already. */
  follow(id: string): void {
    if (this.outbox.running(id)) return;
    hasPatch(PATCH.pushNotifications);
    this.outbox.run(id, this.lane(id));
  }

  private lane(id: string): Lane<Delivery, void> {
    return {
      waitFor: () => (this.record.pushConfig(id)?.pending.length ?? 1) > 0,
      next: () => {
        const stored = this.record.pushConfig(id);
        if (!stored) return undefined;
        const event = stored.pending[0]!;
        const notificationId = `${this.record.id}:${event.seq}`;
        const body = streamResponseOf(this.record, event)!;
        return { id: notificationId, stored, notification: { config: stored.config, notificationId, body } };
      },
      sending: ({ stored, notification }) => ({ send: this.sender(notification), attempts: attempts(stored) }),
      // A config deleted meanwhile gets no more attempts.
      failing: ({ stored }, reason) => {
        if (!this.stillStored(stored)) return false;
        this.record.pushFailing(id, reason);
        return true;
      },
      settled: ({ stored, notification }, outcome) => {
        if (!outcome.ok) {
          const { notificationId } = notification;
          const { reason } = outcome;
          log.warn('push notification given up', { taskId: this.record.id, configId: id, notificationId, reason });
        }
        if (this.stillStored(stored)) this.record.pushSettled(id, outcome);
      },
    };
  }

  /**
   * Whether the config a delivery was for is still the one stored under its ID: deleted (and maybe
   * created again) meanwhile, its outcome says nothing of the new config's queue.
   */
  private stillStored(stored: Readonly<StoredPushConfig>): boolean {
    return this.record.pushConfig(stored.config.id) === stored || !hasPatch(PATCH.pushConfigReplaced);
  }

  private sender(notification: PushNotification): (options: ActivityOptions) => Promise<void> {
    // For the Temporal UI; the host alone, since a webhook's path or query may hold a secret.
    const summary = uiText(`push ${notification.notificationId} to ${new URL(notification.config.url).host}`);
    return (options) =>
      proxyActivities<Record<string, DeliverActivity>>({ ...options, summary })[PUSH_ACTIVITY]!(notification);
  }
}

/**
 * After a give-up, one attempt each until one succeeds: a webhook gone for good holds the finished
 * task open a day, not a day per notification.
 */
function attempts(stored: Readonly<StoredPushConfig>): Attempts {
  if (lastGivenUp(stored)) return 'once';
  return hasPatch(PATCH.pushFailuresShown) ? 'once then retried' : 'retried';
}
