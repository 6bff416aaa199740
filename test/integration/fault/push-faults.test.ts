/**
 * Push delivery under fault: the worker is SIGKILLed while a webhook holds a notification's POST
 * open. The notification is sent again by the next worker and every later one follows, in order;
 * the receiver deduplicates by notification ID. Prints what it tried, what survived and what was lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from '../../support/webhook.js';
import {
  agentUrl,
  faultSuite,
  report,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
} from '../../support/product-processes.js';

faultSuite();

const webhook = new Webhook();
let hookUrl: string;

beforeAll(async () => {
  hookUrl = await webhook.start();
});
afterAll(() => webhook.close());

const notificationId = (headers: Record<string, unknown>) => String(headers['x-a2a-notification-id']);
const stateOf = (body: Record<string, Record<string, unknown>>) =>
  (body.statusUpdate?.status as { state?: string } | undefined)?.state;

describe('a worker SIGKILLed during a push delivery', () => {
  it('delivers the notification it was sending, then the rest, in order, once each after deduplication', async () => {
    const taskQueue = uniqueQueue('push');
    const env = { A2A_PUSH_ALLOWED_HOSTS: '127.0.0.1' };
    const [gateway, worker] = await Promise.all([startGateway({ taskQueue, env }), startWorker({ taskQueue, env })]);
    const url = agentUrl(gateway, 'expense-approval');
    webhook.hanging = true;
    const config = { id: 'kill', url: hookUrl, token: '' };
    const asked = taskOf(
      await rpc(url, 'SendMessage', {
        message: userMessage([{ text: 'Please approve an expense of 120 USD for a team lunch' }]),
        configuration: { taskPushNotificationConfig: config },
      }),
    );
    await waitFor(
      'the first notification to reach the webhook',
      async () => webhook.forTask(asked.id, webhook.hung).length > 0,
    );
    const cutShort = notificationId(webhook.forTask(asked.id, webhook.hung)[0]!.headers);
    await worker.stop('SIGKILL');
    const killedAt = Date.now();
    webhook.hanging = false;
    await startWorker({ taskQueue, env });
    const done = taskOf(
      await rpc(url, 'SendMessage', { message: userMessage([{ text: 'approve' }], { taskId: asked.id }) }),
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    await waitFor(
      'the completion to reach the webhook',
      async () => webhook.forTask(asked.id).some(({ body }) => stateOf(body) === 'TASK_STATE_COMPLETED'),
      { timeoutMs: 60_000 },
    );
    const recoveryMs = Date.now() - killedAt;

    const received = webhook.forTask(asked.id);
    const ids = [...new Set(received.map(({ headers }) => notificationId(headers)))];
    const seqs = ids.map((id) => Number(id.split(':')[1]));
    report('worker SIGKILL during a push delivery', {
      tried: `a task notifying a webhook that held notification ${cutShort} open; worker SIGKILLed mid-POST`,
      survived: `${ids.length} notifications delivered in order (${received.length} POSTs), the held one included`,
      lost: `${ids.includes(cutShort) ? 0 : 1}`,
      'kill to completion delivered': `${recoveryMs} ms`,
    });
    expect(ids).toContain(cutShort);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    expect(received.map(({ body }) => stateOf(body)).filter(Boolean)).toEqual(
      expect.arrayContaining(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED']),
    );
  }, 120_000);
});
