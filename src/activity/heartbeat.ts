/**
 * Cancellation-aware running of long activity work. Temporal tells an activity it was canceled
 * only through heartbeats, so this heartbeats on an interval while the work runs and hands the
 * activity's cancellation signal to the work, to pass on to its I/O (fetch, timers, streams).
 */
import { Context } from '@temporalio/activity';
import { setTimeout as delay } from 'node:timers/promises';

export async function withHeartbeats<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: { intervalMs?: number; details?: () => unknown } = {},
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
