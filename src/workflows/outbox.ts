/**
 * The task workflow's outbox: how it sends to the outside world (push notifications to webhooks,
 * notices to approvers). Each destination (a webhook config; an approver by one channel) has one
 * lane, which sends its items one at a time, in order. Each item is an activity tried once first, so
 * that a failure shows in the task at once; then, its failure recorded in the task, retried with
 * backoff for up to a day, so that a receiver down for hours still gets everything once it is back.
 * The items and how each went live in the task record, changed only through its methods, so that
 * continue-as-new carries them; the outbox keeps only which lanes run and which items are under way.
 *
 * Histories replay on this code exactly as recorded: a lane awaits each step as the two loops it
 * replaces did (push-deliveries.ts and approver-notifications.ts before the outbox), so that each
 * command (a marker, a timer, the next activity) comes in the same microtask, and hence in the same
 * order among those of other code resumed in the same workflow task.
 */
import type { Duration } from '@temporalio/common';
import { CancellationScope, condition, sleep, type ActivityOptions, type RetryPolicy } from '@temporalio/workflow';
import { failedForGood, reasonOf } from './activity-failures.js';

/** Between the first attempt and the retries that follow it. */
const FIRST_RETRY_AFTER = '1 second';

export interface DeliveryOptions {
  retry: RetryPolicy;
  /** Retried with backoff for up to a day. */
  retried: ActivityOptions;
  /** One attempt, its failure shown at once. */
  oneAttempt: ActivityOptions;
}

/** `attemptTimeout`: the backstop over the activity's own timeout; `refused`: failures never retried. */
export function deliveryOptions(attemptTimeout: Duration, refused: string): DeliveryOptions {
  const retry: RetryPolicy = {
    initialInterval: FIRST_RETRY_AFTER,
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    nonRetryableErrorTypes: [refused],
  };
  const retried: ActivityOptions = { startToCloseTimeout: attemptTimeout, scheduleToCloseTimeout: '24 hours', retry };
  return { retry, retried, oneAttempt: { ...retried, retry: { ...retry, maximumAttempts: 1 } } };
}

/**
 * How an item's activity is tried: `once then retried` (the rule), `once` (a push config whose last
 * notification was given up: a webhook gone for good holds the task a day, not a day per
 * notification), `retried` (push histories from before failures were shown at once).
 */
export type Attempts = 'once then retried' | 'once' | 'retried';

/** One item on its way: its activity (with the options of one attempt, or of the retries), and how it is tried. */
export interface Sending<Receipt> {
  send(options: ActivityOptions): Promise<Receipt>;
  attempts: Attempts;
}

type Outcome<Receipt> = { ok: true; receipt: Receipt } | { ok: false; reason: string };

/** One destination's queue, as its sender (push-deliveries.ts, approver-notifications.ts) keeps it in the task record. */
export interface Lane<Item extends { id: string }, Receipt> {
  /**
   * A lane that lasts as long as its destination (a webhook config) waits for this before each
   * item; without it the lane ends when it has nothing more to send, and is started again for the next.
   */
  readonly waitFor?: () => boolean;
  /** The next item to send; none ends the lane. */
  next(): Item | undefined;
  /** Settles an item no longer worth sending (a notice whose question closed) before it is taken up. */
  dropped?(item: Item): boolean;
  /** How the item goes out; none when, taken up, it turns out needless (and the lane settled it so). */
  sending(item: Item): Sending<Receipt> | undefined;
  /** The first attempt failed and the retries follow: the task records why. False: moot now, no retries. */
  failing(item: Item, reason: string): boolean;
  /** Sent, or given up: the task records it, and the lane's next item is due. */
  settled(item: Item, outcome: Outcome<Receipt>): void;
}

export class Outbox {
  private readonly lanes = new Set<string>();
  /** Items whose activity is under way, by ID. */
  private readonly underWay = new Set<string>();

  constructor(private readonly options: DeliveryOptions) {}

  /** No lane runs. */
  get idle(): boolean {
    return this.lanes.size === 0;
  }

  /** Whether any item's activity is under way. */
  get sending(): boolean {
    return this.underWay.size > 0;
  }

  /** Whether this item's activity is under way (it is not skipped when it turns moot). */
  isSending(id: string): boolean {
    return this.underWay.has(id);
  }

  running(destination: string): boolean {
    return this.lanes.has(destination);
  }

  /** Starts the destination's lane unless it runs already. */
  run<Item extends { id: string }, Receipt>(destination: string, lane: Lane<Item, Receipt>): void {
    if (this.lanes.has(destination)) return;
    this.lanes.add(destination);
    // Not cancellable: a canceled task still tells its webhooks and approvers so.
    void CancellationScope.nonCancellable(async () => {
      try {
        for (;;) {
          if (lane.waitFor) await condition(lane.waitFor);
          const item = lane.next();
          if (!item) return;
          if (!lane.dropped?.(item)) await this.deliver(lane, item);
        }
      } finally {
        this.lanes.delete(destination);
      }
    });
  }

  /** One item, with its retries; the outcome settles it. */
  private async deliver<Item extends { id: string }, Receipt>(lane: Lane<Item, Receipt>, item: Item): Promise<void> {
    const sending = lane.sending(item);
    if (!sending) return;
    const { send, attempts } = sending;
    this.underWay.add(item.id);
    let outcome: Outcome<Receipt>;
    try {
      let receipt: Receipt;
      if (attempts !== 'once then retried') {
        receipt = await send(attempts === 'once' ? this.options.oneAttempt : this.options.retried);
      } else {
        try {
          receipt = await send(this.options.oneAttempt);
        } catch (error) {
          if (failedForGood(error) || !lane.failing(item, reasonOf(error))) throw error;
          // The backoff the retry policy would have waited before its second attempt.
          await sleep(FIRST_RETRY_AFTER);
          receipt = await send(this.options.retried);
        }
      }
      outcome = { ok: true, receipt };
    } catch (error) {
      // Retries exhausted (a day, or the one attempt), or a failure retrying cannot help: the next item is due.
      outcome = { ok: false, reason: reasonOf(error) };
    }
    this.underWay.delete(item.id);
    lane.settled(item, outcome);
  }
}
