/**
 * Cancellation-aware running of long activity work. Temporal tells an activity it was canceled
 * only through heartbeats, so this heartbeats on an interval while the work runs and hands the
 * activity's cancellation signal to the work, to pass on to its I/O (fetch, timers, streams).
 */
import { Context } from '@temporalio/activity';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Runs an activity's work while heartbeating, and hands it the activity's cancellation signal: a
 * canceled task then stops the work within a heartbeat, if the work passes the signal to its I/O.
 * Give the activity a `heartbeatTimeout` so that a crashed worker's attempt is retried soon.
 *
 * @param work - the activity's work; pass `signal` to its fetches, timers and streams.
 * @example
 * import { withHeartbeats } from 'a2a-temporal/activity';
 *
 * export async function fetchReport(url: string): Promise<string> {
 *   return withHeartbeats(async (signal) => (await fetch(url, { signal })).text());
 * }
 */
export async function withHeartbeats<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: {
    /** How often to heartbeat, in ms. Default 1000. */
    intervalMs?: number;
    /** The heartbeat details each heartbeat carries (a retried attempt reads the last ones). */
    details?: () => unknown;
  } = {},
): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(options.details?.()), options.intervalMs ?? 1000);
  try {
    context.heartbeat(options.details?.());
    return await work(context.cancellationSignal);
  } finally {
    clearInterval(timer);
  }
}

/** Waits `ms`, ending early (with the abort reason) when `signal` aborts. */
export async function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal });
}
