/**
 * A quorum question in the inbox (docs/approval-policies.md, Quorum), in a browser: after bob's
 * approval, carol's list and the question's page show the votes so far and who is still needed; bob's
 * page shows his vote where the answer form was (his list no longer counts the question as waiting
 * for him: test/unit/tasks/waiting-for.test.ts); her approval from the page is the second, which
 * decides it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  apiKeyPeople,
  browserAvailable,
  newContext,
  outcomeOf,
  row,
  rowShown,
  rpcWithKey,
  sendFirstMessage,
  signIn,
  useInboxStack,
} from '../../../support/browser.js';

const { keyOf, authenticator } = apiKeyPeople('quorum-inbox', {
  alice: [],
  bob: ['finance'],
  carol: ['finance'],
});

const enabled = browserAvailable();
const { stack, harness } = useInboxStack(authenticator, enabled);

describe.runIf(enabled)('a quorum question in the inbox', () => {
  it('shows the votes so far and who is still needed; the second approval from the page decides it', async () => {
    const run = randomUUID().slice(0, 8);
    const agentUrl = `${harness.gateway.url}/agents/test-ask`;
    const task = await sendFirstMessage(agentUrl, keyOf('alice'), 'x', {
      question: `Pay the invoice ${run}?`,
      responders: ['group:finance'],
      quorum: { required: 2 },
    });
    const message = { messageId: randomUUID(), role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'approve fine' }] };
    const voted = await rpcWithKey(agentUrl, keyOf('bob'), 'SendMessage', {
      message,
      configuration: { returnImmediately: false },
    });
    expect(voted.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const bobs = await (await newContext(stack.browser)).newPage();
    await signIn(bobs, harness.gateway.url, keyOf('bob'));
    await bobs.goto(`${harness.gateway.url}/inbox/task?${new URLSearchParams({ agent: 'test-ask', id: task.id })}`);
    await bobs.locator('.voted-title', { hasText: /^You approved at / }).waitFor();
    expect(await bobs.locator('#answer').textContent()).toContain(
      'The question waits for the others: 1 of 2 approvals; still needed: 1 more approval.',
    );
    expect(await bobs.locator('#answer form').count()).toBe(0);
    await bobs.context().close();

    const page = await (await newContext(stack.browser)).newPage();
    await signIn(page, harness.gateway.url, keyOf('carol'));
    await rowShown(page, task.id);
    await expect
      .poll(() => row(page, task.id).locator('.quorum').textContent(), { timeout: 10_000 })
      .toBe('1 of 2 approvals; still needed: 1 more approval');
    await row(page, task.id).locator('a').click();
    await page.locator('dd', { hasText: /^bob approved at .* \(“approve fine”\)$/ }).waitFor();
    expect(await page.locator('dd', { hasText: '1 of 2 approvals; still needed: 1 more approval' }).count()).toBe(1);

    await page.locator('form.approve button').click();
    await outcomeOf(page, 'Answer sent');
    const done = await rpcWithKey(agentUrl, keyOf('alice'), 'GetTask', { id: task.id });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.metadata.votes.map((vote: any) => [vote.by, vote.channel])).toEqual([
      ['bob', 'a2a'],
      ['carol', 'inbox'],
    ]);
    await page.context().close();
  });
});
