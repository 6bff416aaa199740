/**
 * Not a check, a measurement and a picture, run by hand (skipped otherwise):
 *   INBOX_FIGURES=1 npx vitest run test/integration/gateway/inbox/figures.test.ts
 * 200 questions wait for alice: how many visibility queries the list's first page takes and how
 * long the page takes to show it (docs/inbox.md); then screenshots of the list and
 * of a task page into docs/.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../../../src/gateway/auth/authenticator.js';
import { hashApiKey } from '../../../../src/gateway/auth/settings.js';
import { browserAvailable, newContext, signIn, useInboxStack } from '../../../support/browser.js';

const enabled = !!process.env.INBOX_FIGURES && browserAvailable();
const KEYS = { alice: 'figures-key-alice', carol: 'figures-key-carol', bob: 'figures-key-bob' };
const authenticator = createAuthenticator({
  methods: ['api-key'],
  apiKeys: [
    { sha256: hashApiKey(KEYS.alice), principal: 'alice', groups: ['finance'] },
    { sha256: hashApiKey(KEYS.carol), principal: 'carol', groups: ['finance'] },
    { sha256: hashApiKey(KEYS.bob), principal: 'bob', groups: ['staff'] },
  ],
});
const docs = (name: string) => fileURLToPath(new URL(`../../../../docs/${name}`, import.meta.url));

const { stack, harness } = useInboxStack(authenticator, enabled);

async function send(agent: string, key: string, text: string, data?: object): Promise<string> {
  const parts = [{ text }, ...(data ? [{ data }] : [])];
  const response = await fetch(`${harness.gateway.url}/agents/${agent}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'x-api-key': key },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts } },
    }),
  });
  return ((await response.json()) as any).result.task.id;
}

describe.runIf(enabled)('inbox figures', () => {
  it('200 waiting questions: visibility queries and first render; screenshots', async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    stack.model.script({
      match: token,
      toolCalls: [{ name: 'place_order', arguments: { item: 'standing desk', quantity: 4, total: 1960 } }],
    });
    const tool = await send('test-llm', KEYS.alice, `Order four standing desks for the new team ${token}`);
    await send('test-ask', KEYS.carol, 'Pay the Q3 cloud invoice (12,400 EUR) to Nimbus Hosting', {
      responders: ['group:finance'],
      notByRequester: true,
      deadline: '3 hours',
      structured: true,
    });
    await send('expense-approval', KEYS.alice, 'Please approve an expense of 120 USD for a team lunch');
    for (let batch = 0; batch < 197; batch += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, 197 - batch) }, (_, i) =>
          send('test-ask', KEYS.carol, `Invoice ${batch + i + 1} of the batch ${token}`, {
            responders: ['group:finance'],
            deadline: `${batch + i + 2} hours`,
          }),
        ),
      );
    }
    // Counts the gateway's visibility queries (its client is this harness's).
    const service = harness.temporal.workflowService as unknown as { listWorkflowExecutions(r: unknown): unknown };
    const list = service.listWorkflowExecutions.bind(service);
    let queries = 0;
    service.listWorkflowExecutions = (request) => {
      queries++;
      return list(request);
    };
    const context = await newContext(stack.browser);
    const page = await context.newPage();
    await signIn(page, harness.gateway.url, KEYS.alice);
    await expect.poll(() => page.locator('#questions li').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(200);
    for (let run = 0; run < 5; run++) {
      queries = 0;
      const started = Date.now();
      await page.goto(`${harness.gateway.url}/inbox/`);
      await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#questions li').length >= 200);
      const shown = Date.now() - started;
      const marks = await page.evaluate(() => {
        const { performance } = globalThis as any;
        const at = (name: string) => Math.round(performance.getEntriesByName(name)[0]?.startTime ?? -1);
        return { listed: at('inbox-list-received'), rendered: at('inbox-list-rendered') };
      });
      const api = await page.evaluate(async () => {
        const started = performance.now();
        await (await fetch('api/questions')).json();
        return Math.round(performance.now() - started);
      });
      console.log(
        `inbox figures: 200+ rows shown ${shown} ms after navigation (list received at ${marks.listed} ms, rendered at ${marks.rendered} ms), ${queries} visibility queries; GET api/questions alone ${api} ms`,
      );
    }
    await page.setViewportSize({ width: 1000, height: 760 });
    await page.locator('#order').selectOption('age');
    await page.waitForTimeout(1_500);
    await page.screenshot({ path: docs('inbox-list.png') });
    await page.goto(`${harness.gateway.url}/inbox/task?${new URLSearchParams({ agent: 'test-llm', id: tool })}`);
    await page.locator('#question-body .prompt').waitFor();
    await page.screenshot({ path: docs('inbox-task.png'), fullPage: true });
    await context.close();
  });
});
