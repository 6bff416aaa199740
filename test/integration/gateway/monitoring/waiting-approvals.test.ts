/**
 * The approvals gauge's listing: one visibility listing serves every scrape for its maximum age,
 * however many scrapers ask, and a later scrape lists again. Real Temporal; the spy only counts
 * the listings and passes them through.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WaitingApprovals } from '../../../../src/gateway/monitoring/waiting-approvals.js';
import { testClient } from '../../../support/worker.js';

let client: Client;

beforeAll(async () => {
  client = await testClient();
});

afterAll(async () => {
  await client?.connection.close();
});

describe('WaitingApprovals', () => {
  it('lists once per maximum age, whatever the number of scrapes, then again', async () => {
    const listings = vi.spyOn(client.workflow, 'list');
    const approvals = new WaitingApprovals(client, ['expense-approval'], 'test-approvals-cache', 300);

    const scrapes = await Promise.all([approvals.snapshot(), approvals.snapshot(), approvals.snapshot()]);
    expect(listings).toHaveBeenCalledTimes(1);
    expect(scrapes[0]).toBe(scrapes[2]);
    expect(scrapes[0]!.get('expense-approval')).toEqual({ waiting: 0, pastDeadline: 0, pastHalfDeadline: 0 });

    await new Promise((resolve) => setTimeout(resolve, 350));
    await approvals.snapshot();
    expect(listings).toHaveBeenCalledTimes(2);
  });
});
