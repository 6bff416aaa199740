/**
 * How the task workflow delivers to the outside world (push notifications, approver notices): one
 * attempt first, so that a failure shows in the task at once, then retries with backoff for up to a
 * day, so that a receiver down for hours still gets everything once it is back.
 */
import type { Duration } from '@temporalio/common';
import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';

/** Between the first attempt and the retries that follow it. */
export const FIRST_RETRY_AFTER = '1 second';

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
