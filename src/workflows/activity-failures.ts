/** How the task workflow reads the failure of an activity it sends something with (push deliveries, approver notices). */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';

/** What went wrong, as the activity said it (not Temporal's "Activity task failed" wrapper). */
export function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

/** A refused URL, a redirect, a missing address (any failure its activity marks non-retryable): retrying cannot help. */
export function failedForGood(error: unknown): boolean {
  return (
    error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.nonRetryable === true
  );
}
