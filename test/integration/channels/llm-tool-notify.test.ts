/**
 * An LLM tool's approval reaches its approvers as `ctx.ask` does: `defineTool({ approval, approvers,
 * notify, remind, escalate })` sends the question by the tool's channels (a real local webhook here, with a
 * fake OpenAI-compatible model over real HTTP), a reminder before the approval deadline, and the
 * call runs once approved.
 */
import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { finalTask, reply, startTask, waitForState } from '../../support/tasks.js';
import { placedOrders } from '../../support/test-activities.js';
import { Webhook } from '../../support/webhook.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';
import { eventually } from '../../support/mail-server.js';

let model: FakeModelServer;
let webhook: Webhook;
let worker: TestWorker;
let client: Client;

beforeAll(async () => {
  model = await startFakeModelServer();
  webhook = new Webhook();
  const hookUrl = await webhook.start();
  worker = await startTestWorker(undefined, {
    model: { baseURL: model.url, model: 'fake-model' },
    approvals: {
      directory: { principals: {}, groups: {} },
      webhookUrl: hookUrl,
      publicUrl: 'https://approvals.example.com',
      policy: { allowedHosts: new Set(['127.0.0.1']) },
    },
  });
  client = await testClient();
});

afterAll(async () => {
  await worker?.shutdown();
  await client?.connection.close();
  await webhook?.close();
  await model?.close();
});

describe("an LLM tool's approval", () => {
  it('notifies the approvers by the tool’s channels, reminds them, and runs the call once approved', async () => {
    const item = `t${randomUUID().slice(0, 8)}`;
    model.script(
      {
        match: item,
        toolCalls: [{ name: 'place_order', arguments: { item, quantity: 2, total: 80 }, id: `c-${item}` }],
      },
      { match: `${item}\\"`, text: `Ordered 2 ${item}.` },
    );
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-llm-notify', { text: `Buy 2 ${item}` });
    const waiting = await waitForState(handle, 'input-required');
    expect(waiting.metadata?.pendingQuestion).toMatchObject({ responders: ['dave'] });
    const mine = () => webhook.received.filter((received) => received.body.taskId === (taskId as unknown));
    // The question, then the reminder two seconds later (28 seconds before the 30-second deadline).
    await eventually(() => mine().length === 2);
    const [ask, reminder] = mine().map((received) => received.body as Record<string, unknown>);
    expect(ask).toMatchObject({ kind: 'ask', approver: 'dave', agent: 'test-llm-notify' });
    expect(String(ask!.question)).toContain('The agent wants to call place_order(');
    expect(reminder).toMatchObject({ kind: 'reminder', approver: 'dave' });
    expect(placedOrders.filter((order) => order.item === item)).toEqual([]);

    // Unapproved four seconds after it was asked, the approval escalates (widens) to erin, who is told and approves.
    const escalated = await eventually(() => mine().find((received) => received.body.approver === ('erin' as unknown)));
    expect(escalated.body).toMatchObject({ kind: 'ask', approver: 'erin' });
    expect(placedOrders.filter((order) => order.item === item)).toEqual([]);

    await reply(handle, { text: 'approve', responder: 'erin' });
    const { task } = await finalTask(handle);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message?.parts[0]?.text).toBe(`Ordered 2 ${item}.`);
    expect(placedOrders.filter((order) => order.item === item)).toHaveLength(1);
    expect(task.metadata?.escalations).toEqual([
      expect.objectContaining({ to: ['erin'], mode: 'widen', from: ['dave'] }),
    ]);
    // Erin answered: dave, who was told too, hears so.
    const notices = mine().map(({ body }) => `${String(body.approver)} ${String(body.kind)}`);
    expect(notices.sort()).toEqual(['dave answered', 'dave ask', 'dave reminder', 'erin ask']);
  });
});
