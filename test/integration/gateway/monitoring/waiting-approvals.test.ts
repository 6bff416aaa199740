/**
 * The approvals gauges: counted from the gateway's one index of waiting questions (its
 * TaskChanges'), which the inbox's live lists page through too, so a scrape while a list is open
 * asks Temporal nothing more; and one count serves every scrape for its maximum age. Real
 * Temporal; the spies only count the listings and pass them through.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { WaitingApprovals } from '../../../../src/gateway/monitoring/waiting-approvals.js';
import { WaitingQuestions } from '../../../../src/tasks/index.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../../support/gateway-harness.js';
import { rpc, taskOf, userMessage } from '../../../support/product-processes.js';

// The inbox's list looks again only after a minute: within a test, only its first look lists.
const harness = useGatewayHarness({ gateway: { metricsPort: 0, inbox: { pollMs: 60_000 } } });

/** The visibility listings of waiting questions made through the harness's client from now on. */
function countWaitingListings() {
  const service = harness.temporal.workflowService;
  const listings = vi.spyOn(service, 'listWorkflowExecutions');
  const count = () =>
    listings.mock.calls.filter(([request]) => String(request.query ?? '').includes("= 'input-required'")).length;
  return { count, restore: () => listings.mockRestore() };
}

/** The first list an open inbox page is sent, as text. */
async function firstList(response: Response): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes('event: questions')) text += (await reader.read()).value ?? '';
  return text;
}

describe('the waiting approvals', () => {
  it("are counted from the inbox's list index: a scrape while a list is open lists nothing more", async () => {
    const asked = taskOf(
      await rpc(`${harness.gateway.url}/agents/expense-approval`, 'SendMessage', {
        message: userMessage([{ text: EXPENSE_REQUEST }]),
      }),
    );
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const page = new AbortController();
    const live = await fetch(`${harness.gateway.url}/inbox/api/live`, { signal: page.signal });
    expect(await firstList(live)).toContain(asked.id);

    const listings = countWaitingListings();
    try {
      const metrics = await (await fetch(harness.gateway.metricsUrl!)).text();
      expect(metrics).toMatch(/^a2a_approvals_waiting\{agent="expense-approval"\} 1$/m);
      expect(listings.count()).toBe(0);
    } finally {
      listings.restore();
      page.abort();
    }
  });

  it('are counted once per maximum age, whatever the number of scrapes, then again', async () => {
    const listings = countWaitingListings();
    // An agent of its own: no task waits on it.
    const agent = `approvals-cache-${randomUUID()}`;
    const approvals = new WaitingApprovals(new WaitingQuestions(harness.temporal, [agent], 0), [agent], 300);
    try {
      const scrapes = await Promise.all([approvals.snapshot(), approvals.snapshot(), approvals.snapshot()]);
      expect(listings.count()).toBe(1);
      expect(scrapes[0]).toBe(scrapes[2]);
      expect(scrapes[0]!.get(agent)).toEqual({ waiting: 0, pastDeadline: 0, pastHalfDeadline: 0 });

      await new Promise((resolve) => setTimeout(resolve, 350));
      await approvals.snapshot();
      expect(listings.count()).toBe(2);
    } finally {
      listings.restore();
    }
  });
});
