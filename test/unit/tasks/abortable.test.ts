import type { Client } from '@temporalio/client';
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortable } from '../../../src/tasks/abortable.js';

/** Behaves as the Temporal client does: one 'abort' listener per call, never removed. */
const leakyClient = {
  async withAbortSignal<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    signal.addEventListener('abort', () => {});
    return call();
  },
} as unknown as Client;

describe('abortable', () => {
  it('leaves no listener on the request signal however many calls a stream makes', async () => {
    const request = new AbortController();
    for (let i = 0; i < 100; i++) await abortable(leakyClient, request.signal, async () => i);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
  });

  it('still aborts the call in flight when the request goes away', async () => {
    const request = new AbortController();
    let seen: AbortSignal | undefined;
    const client = {
      withAbortSignal: async <T>(signal: AbortSignal, call: () => Promise<T>) => ((seen = signal), call()),
    } as unknown as Client;
    const call = abortable(client, request.signal, () => new Promise((r) => setTimeout(r, 50)));
    request.abort();
    await call;
    expect(seen?.aborted).toBe(true);
  });
});
