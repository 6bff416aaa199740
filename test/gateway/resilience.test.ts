/** Disconnects, keepalives, and a Temporal that cannot be reached. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import agents from '../../examples/agents/index.js';
import { startGateway } from '../../src/gateway/server.js';
import { createTemporalClient } from '../../src/gateway/temporal-client.js';
import { TaskReader } from '../../src/gateway/task-reader.js';
import { TaskEventHub } from '../../src/gateway/task-events.js';
import { sseRpc, stateOf } from './sse.js';
import { startTestWorker } from '../support/worker.js';
import { EXPENSE_REQUEST, startHarness, type Harness } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function waitingTaskId(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: EXPENSE_REQUEST }] } },
    }),
  });
  return ((await response.json()) as any).result.task.id;
}

describe('open streams', () => {
  it('stop waiting on Temporal the moment their signal aborts', async () => {
    const taskId = await waitingTaskId(`${harness.gateway.url}/agents/expense-approval`);
    const controller = new AbortController();
    const hub = new TaskEventHub(harness.temporal, new TaskReader(harness.temporal, 'expense-approval'));
    const events = hub.follow(taskId, Number.MAX_SAFE_INTEGER, controller.signal);
    const next = events.next();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    expect(await next).toEqual({ done: true, value: undefined });
    // Not a speed check: "at once" versus "when the server's ~20 s history long-poll returns".
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hub.openFeeds).toBe(0);
  });

  it('of one task share one feed of its events, and each sees them all, in order', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const taskId = await waitingTaskId(url);
    const hub = harness.gateway.gateway.handlers.get('expense-approval')!.events;
    const followers = Array.from({ length: 20 }, async () => {
      const states: string[] = [];
      for await (const event of sseRpc(url, 'SubscribeToTask', { id: taskId }))
        states.push(stateOf(event) ?? 'artifact');
      return states;
    });
    await expect.poll(() => hub.followersOf(taskId), { timeout: 20_000 }).toBe(20);
    expect(hub.openFeeds).toBe(1);
    await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId, parts: [{ text: 'approve' }] } },
      }),
    });
    const seen = await Promise.all(followers);
    for (const states of seen) {
      expect(states).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
    }
    expect(hub.openFeeds).toBe(0);
  });

  it('carry keepalive comments while the task waits', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const taskId = await waitingTaskId(url);
    const controller = new AbortController();
    const response = await fetch(url, {
      method: 'POST',
      headers: V1,
      signal: controller.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } }),
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    const deadline = Date.now() + 3_000;
    while (!text.includes(': keepalive') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(text).toContain('"task"');
    expect(text).toContain(': keepalive');
  });
});

describe('without Temporal', () => {
  it('answers a clear retriable error instead of crashing', async () => {
    const { client } = createTemporalClient({ address: '127.0.0.1:1', connectTimeout: '1s' }, 'default');
    const gateway = await startGateway({ client, agents, grpcPort: false });
    const started = Date.now();
    try {
      const response = await fetch(`${gateway.url}/`, {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      });
      const body = (await response.json()) as any;
      expect(body.error).toMatchObject({ code: -32603, message: 'Temporal is unreachable, retry later' });
      // Not a speed check: the gateway's short retries versus the SDK default's ~20 s of them.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await gateway.close();
    }
  }, 30_000);
});

describe('without a worker', () => {
  it('reads a waiting task from its search attributes', async () => {
    const worker = await startTestWorker();
    const gateway = await startGateway({
      client: harness.temporal,
      agents,
      taskQueue: worker.taskQueue,
      grpcPort: false,
    });
    try {
      const url = `${gateway.url}/agents/expense-approval`;
      const taskId = await waitingTaskId(url);
      await worker.shutdown();
      const rpc = async (method: string, params: unknown) =>
        (await (
          await fetch(url, {
            method: 'POST',
            headers: V1,
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          })
        ).json()) as any;
      const task = (await rpc('GetTask', { id: taskId })).result;
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(task.metadata.summaryOnly).toBeDefined();
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
