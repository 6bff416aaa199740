/**
 * Delivers a task's push notifications from inside its workflow: one sequence per webhook config,
 * each notification an activity retried with exponential backoff for up to a day (once a config
 * had one given up, one attempt each until one succeeds), the next one sent only after it. The queues live in the task record, so they survive worker restarts and
 * continue-as-new. Tasks without configs schedule nothing and add nothing to their history.
 */
import {
  CancellationScope,
  condition,
  log,
  patched,
  proxyActivities,
  type ActivityOptions,
} from '@temporalio/workflow';
import {
  PUSH_ACTIVITY,
  PUSH_URL_REFUSED,
  streamResponseOf,
  type PushNotification,
  type StoredPushConfig,
} from '../protocol/push.js';
import type { TaskRecord } from './task-record.js';

/** Marks histories that deliver push notifications (workflows before it never had a config). */
const PUSH_PATCH = 'push-notifications';

const DELIVERY_OPTIONS: ActivityOptions = {
  // The activity bounds each attempt to 10 s itself (see src/push/deliver.ts); this is the backstop,
  // and how soon an attempt lost with its worker is tried again.
  startToCloseTimeout: '15 seconds',
  // A webhook down for up to a day still gets everything once it is back.
  scheduleToCloseTimeout: '24 hours',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [PUSH_URL_REFUSED],
  },
};

/**
 * After a notification was given up, the next ones of that config get one attempt each until one
 * succeeds: a webhook gone for good holds the finished task open a day, not a day per notification.
 */
const GIVING_UP_OPTIONS: ActivityOptions = {
  ...DELIVERY_OPTIONS,
  retry: { ...DELIVERY_OPTIONS.retry, maximumAttempts: 1 },
};

function givingUp({ lastFailure, lastSuccess }: StoredPushConfig): boolean {
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
    patched(PUSH_PATCH);
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
      const notificationId = `${this.record.id}:${event.seq}`;
      const body = streamResponseOf(this.record, event)!;
      const deliver = proxyActivities<Record<string, DeliverActivity>>({
        ...(givingUp(stored) ? GIVING_UP_OPTIONS : DELIVERY_OPTIONS),
        // For the Temporal UI; the host alone, since a webhook's path or query may hold a secret.
        summary: `push ${notificationId} to ${new URL(stored.config.url).host}`,
      })[PUSH_ACTIVITY]!;
      this.inFlight += 1;
      try {
        await deliver({ config: stored.config, notificationId, body });
        this.record.pushSettled(id, { ok: true });
      } catch (error) {
        // Retries are exhausted (a day) or the URL is refused: the next notification is still due.
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
        const reason = cause instanceof Error ? cause.message : String(cause);
        log.warn('push notification given up', { taskId: this.record.id, configId: id, notificationId, reason });
        this.record.pushSettled(id, { ok: false, reason });
      } finally {
        this.inFlight -= 1;
      }
    }
  }
}
