/**
 * Runs a Temporal client call that stops when `signal` aborts. The Temporal client adds an 'abort'
 * listener to the signal for every gRPC call and never removes it, so a stream that makes calls
 * for days on one request's signal would pile them up: each call gets a child signal of its own,
 * unlinked once the call is over.
 */
import type { Client } from '@temporalio/client';

export async function abortable<T>(client: Client, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  const child = new AbortController();
  const forward = () => child.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  try {
    return await client.withAbortSignal(child.signal, call);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}
