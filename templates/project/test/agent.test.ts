/** The agent end to end: a real Temporal dev server, the real worker and the A2A gateway. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnvironment, stateOf, type TestEnvironment } from 'a2a-temporal/testing';

let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment(); // reads ./a2a-temporal.config.ts
});
afterAll(() => env?.stop());

it('waits for approval, then places the order', async () => {
  const agent = env.agent('purchase-approval');
  const task = await agent.send('Buy 3 monitors for 450 EUR');
  expect(stateOf(task)).toBe('input-required');

  const done = await agent.reply(task.id, 'approve');
  expect(stateOf(done)).toBe('completed');
  expect(done.artifacts?.[0]?.parts[0]?.data).toMatchObject({ item: '3 monitors', amount: 450, currency: 'EUR' });
});

it('ends rejected when denied', async () => {
  const agent = env.agent('purchase-approval');
  const task = await agent.send('Buy a standing desk for 600 EUR');
  expect(stateOf(await agent.reply(task.id, 'deny'))).toBe('rejected');
});
