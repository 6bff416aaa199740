/**
 * Delivers a task's push notifications from inside its workflow: one sequence per webhook config,
 * each notification an activity tried once, then (its failure recorded in the task) retried with
 * exponential backoff for up to a day, the next one sent only after it. The queues live in the
 * task record, so they survive worker restarts and continue-as-new. Tasks without configs schedule
 * nothing and add nothing to their history.
 */
import { CancellationScope, condition, log, proxyActivities, sleep, type ActivityOptions } from '@temporalio/workflow';
import {
  PUSH_ACTIVITY,
  PUSH_URL_REFUSED,
  streamResponseOf,
  type PushNotification,
  type StoredPushConfig,
} from '../protocol/push.js';
import { failedForGood, reasonOf } from './activity-failures.js';
import type { TaskRecord } from './task-record.js';
import { deliveryOptions, FIRST_RETRY_AFTER } from './delivery-retries.js';
import { hasPatch, PATCH } from './task-patches.js';
import { uiText } from '../protocol/ui-text.js';

// The activity bounds each attempt to 10 s itself (see src/package-activities/push.ts); 15 s is the backstop,
// and how soon an attempt lost with its worker is tried again.
const { retried: DELIVERY_OPTIONS, oneAttempt: ONE_ATTEMPT } = deliveryOptions('15 seconds', PUSH_URL_REFUSED);

/**
 * The config's last notification was given up (a failure after its last success; a failure that
 * is still being retried is always followed by a success or a give-up before the next one starts).
 */
function lastGivenUp({ lastFailure, lastSuccess }: StoredPushConfig): boolean {
  return lastFailure !== undefined && (lastSuccess === undefined || lastFailure.at > lastSuccess);
}

type DeliverActivity = (notification: PushNotification) => Promise<void>;

export class PushDeliveries {
  private readonly running = new Set<string>();
  private inFlight = 0;

  constructor(private readonly record: TaskRecord) {}

  /** Nothing queued and nothing under way: the workflow may end or continue as new. */
  get idle(): boolean {
    return this.inFlight === 0 && this.record.pushConfigs.every((stored) => stored.pending.length === 0);
  }

  /** Follows every stored config (a continued run picks up the queues of the one before). */
  resume(): void {
    for (const stored of this.record.pushConfigs) this.follow(stored.config.id);
  }

  /** Starts the delivery sequence of a config unless it runs already. */
  follow(id: string): void {
    if (this.running.has(id)) return;
    hasPatch(PATCH.pushNotifications);
    this.running.add(id);
    // Not cancellable: a canceled task still tells its webhooks that it was canceled.
    void CancellationScope.nonCancellable(() => this.deliverAll(id)).finally(() => this.running.delete(id));
  }

  private async deliverAll(id: string): Promise<void> {
    for (;;) {
      await condition(() => (this.record.pushConfig(id)?.pending.length ?? 1) > 0);
      const stored = this.record.pushConfig(id);
      if (!stored) return;
      const event = stored.pending[0]!;
      const notification = {
        config: stored.config,
        notificationId: `${this.record.id}:${event.seq}`,
        body: streamResponseOf(this.record, event)!,
      };
      this.inFlight += 1;
      try {
        await this.deliver(stored, notification);
        if (this.stillStored(stored)) this.record.pushSettled(id, { ok: true });
      } catch (error) {
        // Retries are exhausted (a day, or the one attempt after a give-up) or the URL is refused:
        // the next notification is still due.
        const reason = reasonOf(error);
        const { notificationId } = notification;
        log.warn('push notification given up', { taskId: this.record.id, configId: id, notificationId, reason });
        if (this.stillStored(stored)) this.record.pushSettled(id, { ok: false, reason });
      } finally {
        this.inFlight -= 1;
      }
    }
  }

  /**
   * Whether the config a delivery was for is still the one stored under its ID: deleted (and maybe
   * created again) meanwhile, its outcome says nothing of the new config's queue.
   */
  private stillStored(stored: StoredPushConfig): boolean {
    return this.record.pushConfig(stored.config.id) === stored || !hasPatch(PATCH.pushConfigReplaced);
  }

  /** One notification, with its retries; throws once it is given up. */
  private async deliver(stored: StoredPushConfig, notification: PushNotification): Promise<void> {
    // For the Temporal UI; the host alone, since a webhook's path or query may hold a secret.
    const summary = uiText(`push ${notification.notificationId} to ${new URL(stored.config.url).host}`);
    const send = (options: ActivityOptions) =>
      proxyActivities<Record<string, DeliverActivity>>({ ...options, summary })[PUSH_ACTIVITY]!(notification);
    // After a give-up, one attempt each until one succeeds: a webhook gone for good holds the
    // finished task open a day, not a day per notification.
    if (lastGivenUp(stored)) return send(ONE_ATTEMPT);
    if (!hasPatch(PATCH.pushFailuresShown)) return send(DELIVERY_OPTIONS);
    try {
      // One attempt first, so that a failure shows in the task (tasks show) at once, not after a day.
      return await send(ONE_ATTEMPT);
    } catch (error) {
      // A config deleted meanwhile gets no more attempts.
      if (failedForGood(error) || !this.stillStored(stored)) throw error;
      this.record.pushFailing(stored.config.id, reasonOf(error));
      // The backoff the retry policy would have waited before its second attempt.
      await sleep(FIRST_RETRY_AFTER);
      return send(DELIVERY_OPTIONS);
    }
  }
}
