/**
 * The Prometheus endpoints of the product's own `gateway` and `worker` commands (child processes:
 * a process installs one Temporal runtime, with or without metrics), scraped after a few tasks:
 * requests by method, transport, agent and outcome, their latency, open streams, tasks started and
 * settled, and the approvals waiting, compared with the tasks that actually wait.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/temporal/dev-server.js';
import {
  agentUrl,
  cleanUp,
  rpc,
  startGateway,
  startWorker,
  taskOf,
  uniqueQueue,
  userMessage,
  waitFor,
  type ServeProcess,
} from '../../support/product-processes.js';
import { testClient } from '../../support/worker.js';

let taskQueue: string;
let gateway: ServeProcess;
let worker: ServeProcess;
let gatewayMetrics: string;
let workerMetrics: string;
let temporal: Client;

beforeAll(async () => {
  taskQueue = uniqueQueue('metrics');
  const [gatewayPort, workerPort] = [await freePort(), await freePort()];
  gatewayMetrics = `http://127.0.0.1:${gatewayPort}/metrics`;
  workerMetrics = `http://127.0.0.1:${workerPort}/metrics`;
  [gateway, worker] = await Promise.all([
    startGateway({ taskQueue, env: { A2A_METRICS_PORT: String(gatewayPort) } }),
    startWorker({ taskQueue, env: { A2A_WORKER_METRICS_PORT: String(workerPort), HOST: '127.0.0.1' } }),
  ]);
  temporal = await testClient();
});

afterAll(async () => {
  await cleanUp();
  await temporal?.connection.close();
});

const send = (agent: string, text: string, extra: Record<string, unknown> = {}) =>
  rpc(agentUrl(gateway, agent), 'SendMessage', { message: userMessage([{ text }], extra) }).then(taskOf);

describe('metrics', () => {
  it('count and time the requests, the tasks started and settled, and the approvals waiting', async () => {
    expect(gateway.output()).toContain(gatewayMetrics);
    expect(worker.output()).toContain(workerMetrics);

    await send('echo', 'one');
    await send('echo', 'two');
    const rest = await fetch(`${agentUrl(gateway, 'echo')}/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMessage([{ text: 'three' }]) }),
    });
    expect(rest.status).toBe(200);
    const streamed = await fetch(agentUrl(gateway, 'echo'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: userMessage([{ text: 'four' }]) },
      }),
    });
    expect(await streamed.text()).toContain('TASK_STATE_COMPLETED');

    const asked = await Promise.all(
      [1, 2, 3, 4].map((n) => send('expense-approval', `Please approve an expense of ${n}0 USD for lunch`)),
    );
    expect(asked.map((task) => task.status.state)).toEqual(Array(4).fill('TASK_STATE_INPUT_REQUIRED'));
    const reply = (task: any, text: string) =>
      send('expense-approval', text, { taskId: task.id, contextId: task.contextId });
    expect((await reply(asked[0], 'approve')).status.state).toBe('TASK_STATE_COMPLETED');
    expect((await reply(asked[1], 'deny')).status.state).toBe('TASK_STATE_REJECTED');
    expect((await send('expense-approval', 'Buy me a pony')).status.state).toBe('TASK_STATE_REJECTED');
    const missing = await rpc(agentUrl(gateway, 'expense-approval'), 'GetTask', { id: randomUUID() });
    expect(missing.error?.code).toBe(-32001);

    // What actually waits, read task by task; and visibility caught up with it before the first scrape.
    const states = await Promise.all(
      asked.map(async (task) => (await rpc(agentUrl(gateway, 'expense-approval'), 'GetTask', { id: task.id })).result),
    );
    const waiting = states.filter((task) => task.status.state === 'TASK_STATE_INPUT_REQUIRED').length;
    expect(waiting).toBe(2);
    const query = `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND A2ATaskState = 'input-required'`;
    await waitFor(
      'visibility to list the waiting tasks',
      async () => (await temporal.workflow.count(query)).count === waiting,
    );

    // An open subscription counts as an open stream until the client goes away.
    const subscriber = new AbortController();
    const subscription = await fetch(agentUrl(gateway, 'expense-approval'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: asked[2].id } }),
      signal: subscriber.signal,
    });
    await subscription.body!.getReader().read(); // the task snapshot
    const open = await scrape(gatewayMetrics);
    const subscribing = { method: 'SubscribeToTask', transport: 'jsonrpc', agent: 'expense-approval' };
    expect(value(open, 'a2a_gateway_open_streams', subscribing)).toBe(1);
    subscriber.abort();
    await waitFor('the subscription to close', async () => {
      return value(await scrape(gatewayMetrics), 'a2a_gateway_open_streams', subscribing) === 0;
    });

    const metrics = await scrape(gatewayMetrics);
    console.log(`The gateway's metrics:\n${ours(metrics, /^a2a_/)}`);
    const echo = { agent: 'echo', transport: 'jsonrpc', method: 'SendMessage' };
    expect(value(metrics, 'a2a_gateway_requests_total', { ...echo, outcome: 'ok' })).toBe(2);
    expect(value(metrics, 'a2a_gateway_request_duration_seconds_count', echo)).toBe(2);
    expect(value(metrics, 'a2a_gateway_request_duration_seconds_bucket', { ...echo, le: '+Inf' })).toBe(2);
    expect(value(metrics, 'a2a_gateway_request_duration_seconds_sum', echo)).toBeGreaterThan(0);
    expect(value(metrics, 'a2a_gateway_requests_total', { ...echo, transport: 'rest', outcome: 'ok' })).toBe(1);
    const stream = { ...echo, method: 'SendStreamingMessage' };
    expect(value(metrics, 'a2a_gateway_requests_total', { ...stream, outcome: 'ok' })).toBe(1);
    expect(value(metrics, 'a2a_gateway_stream_first_event_seconds_count', stream)).toBe(1);
    expect(value(metrics, 'a2a_gateway_open_streams', stream)).toBe(0);
    expect(value(metrics, 'a2a_gateway_requests_total', { ...subscribing, outcome: 'ClientGone' })).toBe(1);
    const expense = { agent: 'expense-approval', transport: 'jsonrpc' };
    expect(value(metrics, 'a2a_gateway_requests_total', { ...expense, method: 'SendMessage', outcome: 'ok' })).toBe(7);
    expect(
      value(metrics, 'a2a_gateway_requests_total', { ...expense, method: 'GetTask', outcome: 'TaskNotFound' }),
    ).toBe(1);
    expect(value(metrics, 'a2a_gateway_requests_total', { ...expense, method: 'GetTask', outcome: 'ok' })).toBe(4);
    expect(value(metrics, 'a2a_approvals_waiting', { agent: 'expense-approval' })).toBe(waiting);
    expect(value(metrics, 'a2a_approvals_waiting', { agent: 'echo' })).toBe(0);
    const oldest = value(metrics, 'a2a_approvals_oldest_waiting_seconds', { agent: 'expense-approval' })!;
    expect(oldest).toBeGreaterThan(0);
    expect(oldest).toBeLessThan(120);
    expect(value(metrics, 'a2a_approvals_past_deadline', { agent: 'expense-approval' })).toBe(0);

    const runtime = await scrape(workerMetrics);
    console.log(`The worker's task metrics:\n${ours(runtime, /^a2a_/)}`);
    for (const [agent, started] of [
      ['echo', 4],
      ['expense-approval', 5],
    ] as const) {
      expect(value(runtime, 'a2a_tasks_started_total', { agent, taskQueue })).toBe(started);
    }
    expect(value(runtime, 'a2a_tasks_settled_total', { agent: 'echo', state: 'completed' })).toBe(4);
    expect(value(runtime, 'a2a_tasks_settled_total', { agent: 'expense-approval', state: 'completed' })).toBe(1);
    expect(value(runtime, 'a2a_tasks_settled_total', { agent: 'expense-approval', state: 'rejected' })).toBe(2);
    // The Temporal runtime's own metrics, by workflow and activity type.
    console.log(
      `Some of Temporal's:\n${ours(runtime, /^temporal_(workflow_completed|workflow_failed|activity_execution_latency_seconds_count)/)}`,
    );
    expect(
      value(runtime, 'temporal_activity_execution_latency_seconds_count', { activity_type: 'assessExpense' }),
    ).toBe(5);
    expect(value(runtime, 'temporal_workflow_completed_total', { workflow_type: 'echo' })).toBe(4);
  });

  it('time the approvals: the first view in the inbox, the decision, and count those that expire', async () => {
    const expense = { agent: 'expense-approval', group: 'none' };
    const decisions = () => scrape(workerMetrics).then((s) => value(s, 'a2a_approval_decision_seconds_count', expense));
    const decidedBefore = (await decisions()) ?? 0;
    const asked = await send('expense-approval', 'Please approve an expense of 15 USD for a book');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // Opened twice in the inbox (no authentication: anyone may answer): its first view only is timed.
    for (const _ of [1, 2])
      expect((await fetch(`${gateway.url}/inbox/api/tasks/expense-approval/${asked.id}`)).ok).toBe(true);
    const viewed = await scrape(gatewayMetrics);
    expect(value(viewed, 'a2a_approval_first_view_seconds_count', expense)).toBe(1);
    expect(value(viewed, 'a2a_approval_first_view_seconds_bucket', { ...expense, le: '60' })).toBe(1);
    const answered = await send('expense-approval', 'approve', { taskId: asked.id, contextId: asked.contextId });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    await waitFor('the worker to time the decision', async () => (await decisions()) === decidedBefore + 1);
    expect(value(await scrape(workerMetrics), 'a2a_approval_decision_seconds_bucket', { ...expense, le: '60' })).toBe(
      decidedBefore + 1,
    );

    // Its deadline (8 s) passes unanswered: the task is rejected, the expiry counted.
    const expiring = await send('fault-deadline', 'Please approve an expense of 20 USD for coffee');
    await waitFor(
      'the question to expire',
      async () => {
        const task = (await rpc(agentUrl(gateway, 'fault-deadline'), 'GetTask', { id: expiring.id })).result;
        return task.status.state === 'TASK_STATE_REJECTED';
      },
      { timeoutMs: 30_000 },
    );
    const expired = { agent: 'fault-deadline', group: 'none' };
    await waitFor('the worker to count the expiry', async () => {
      return value(await scrape(workerMetrics), 'a2a_approvals_expired_total', expired) === 1;
    });
    console.log(`The approval metrics:\n${ours(await scrape(workerMetrics), /^a2a_approval/)}`);
  });

  it('show the approvals left past their deadline when no worker runs', async () => {
    const asked = await send('fault-deadline', 'Please approve an expense of 10 USD for coffee');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // The deadline (8 s) must pass while no worker can fire its timer.
    await worker.stop();
    const deadline = { agent: 'fault-deadline' };
    await waitFor(
      'the approval to show as past its deadline',
      async () => value(await scrape(gatewayMetrics), 'a2a_approvals_past_deadline', deadline) === 1,
      { timeoutMs: 40_000, intervalMs: 1_000 },
    );
    const metrics = await scrape(gatewayMetrics);
    expect(value(metrics, 'a2a_approvals_waiting', deadline)).toBe(1);
    expect(value(metrics, 'a2a_approvals_past_half_deadline', deadline)).toBe(1);
    expect(value(metrics, 'a2a_approvals_oldest_waiting_seconds', deadline)).toBeGreaterThan(8);
  });
});

// ---------------------------------------------------------------------------------------------
// The Prometheus text format, as a scraper reads it.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return (await response.text()).split('\n').flatMap((line): Sample[] => {
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!sample || line.startsWith('#')) return [];
    const labels = Object.fromEntries(
      [...(sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    return [{ name: sample[1]!, labels, value: Number(sample[3]) }];
  });
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}: ${found.length} samples`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

function ours(samples: Sample[], names: RegExp): string {
  return samples
    .filter((sample) => names.test(sample.name) && !sample.name.endsWith('_bucket'))
    .map((sample) => `${sample.name}${JSON.stringify(sample.labels)} ${sample.value}`)
    .join('\n');
}
