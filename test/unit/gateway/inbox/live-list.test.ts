/**
 * The inbox's live list re-lists no sooner than four times its last listing took: a listing costs
 * the visibility store per row, so an open page must not keep it busy (src/gateway/inbox/live-list.ts).
 * Only the list's timing is under test: the Temporal client is a stand-in whose listing takes the
 * time the test gives it, on vitest's fake clock.
 */
import type { Client } from '@temporalio/client';
import type { Response } from 'express';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveLists } from '../../../../src/gateway/inbox/live-list.js';
import { WaitingQuestions } from '../../../../src/tasks/index.js';

const POLL_MS = 1_000;

/** A client whose every visibility listing answers no rows after `listingMs()`, recording when each began. */
function slowListingClient(listingMs: () => number): { client: Client; starts: number[] } {
  const starts: number[] = [];
  const listWorkflowExecutions = () => {
    starts.push(Date.now());
    return new Promise((resolve) => setTimeout(() => resolve({ executions: [] }), listingMs()));
  };
  const client = {
    options: { namespace: 'default' },
    workflow: { options: { loadedDataConverter: {} } },
    workflowService: { listWorkflowExecutions },
  } as unknown as Client;
  return { client, starts };
}

/** An open event stream, as far as the live list uses one. */
function openPage(): Response & EventEmitter {
  const page = new EventEmitter() as Response & EventEmitter;
  Object.assign(page, { writableEnded: false, write: () => true });
  return page;
}

describe('the inbox live list', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pauses four times a slow listing before the next, and its poll interval after a quick one', async () => {
    let listingMs = 300;
    const { client, starts } = slowListingClient(() => listingMs);
    const lists = new LiveLists(new WaitingQuestions(client, ['expense-approval'], POLL_MS), POLL_MS);
    const page = openPage();
    lists.follow({ order: 'deadline' }, page);

    // 300 ms listing, then a 1,200 ms pause: the next begins 1,500 ms after the first.
    await vi.advanceTimersByTimeAsync(1_499);
    expect(starts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(2);
    expect(starts[1]! - starts[0]!).toBe(1_500);

    // A quick listing (10 ms) waits the poll interval: the next begins 1,010 ms later.
    listingMs = 10;
    await vi.advanceTimersByTimeAsync(300 + 1_200);
    expect(starts).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1_010);
    expect(starts).toHaveLength(4);
    expect(starts[3]! - starts[2]!).toBe(1_010);

    // The last page closed while the fourth listing ran: it finishes, and no other begins.
    page.emit('close');
    expect(lists.size).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(starts).toHaveLength(4);
  });
});
