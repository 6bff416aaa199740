/**
 * An escalated question in the inbox (docs/approval-policies.md, Escalation), in a browser: nobody
 * answered in time, so it reached the finance leads; a lead's list and the question's page say so.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  apiKeyPeople,
  browserAvailable,
  newContext,
  row,
  rowShown,
  sendFirstMessage,
  signIn,
  useInboxStack,
} from '../../../support/browser.js';

const { keyOf, authenticator } = apiKeyPeople('escalated', { alice: [], bob: [], lena: ['finance-leads'] });

const enabled = browserAvailable();
const { stack, harness } = useInboxStack(authenticator, enabled);

describe.runIf(enabled)('an escalated question in the inbox', () => {
  it('is listed for the finance lead with its escalation, and its page says so', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await sendFirstMessage(`${harness.gateway.url}/agents/test-ask`, keyOf('alice'), 'x', {
      question: `Pay the invoice ${run}?`,
      responders: ['bob'],
      escalate: [{ after: '1 s', to: ['group:finance-leads'] }],
    });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const page = await (await newContext(stack.browser)).newPage();
    await signIn(page, harness.gateway.url, keyOf('lena'));
    await rowShown(page, task.id);
    expect(await row(page, task.id).locator('.escalated').textContent()).toMatch(
      /^escalated to group finance-leads at /,
    );
    await row(page, task.id).locator('a').click();
    const fact = page.locator('dd', { hasText: /^escalated to group finance-leads at / });
    await fact.waitFor();
    expect(await page.locator('dt', { hasText: /^Escalation$/ }).count()).toBe(1);
    await page.context().close();
  });
});
