/** Disconnects, keepalives, health, start-up, host names, and a Temporal that cannot be reached. */
import { describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import agents from '../../../examples/agents/index.js';
import { isTemporalBusy, TEMPORAL_BUSY, TEMPORAL_UNAVAILABLE } from '../../../src/tasks/errors.js';
import type * as GrpcServer from '../../../src/gateway/http/grpc-server.js';
import { gatewaySettings } from '../../../src/gateway/config.js';
import { serveGateway, startGateway } from '../../../src/gateway/server.js';
import { createTemporalClient } from '../../../src/tasks/temporal-client.js';
import { TaskEventHub } from '../../../src/gateway/a2a/task-events.js';
import { TaskWorkflows } from '../../../src/tasks/index.js';
import { HistoryWatcher } from '../../../src/tasks/events.js';
import { sseRpc, stateOf } from '../../support/sse.js';
import { startTestWorker } from '../../support/worker.js';
import { freePort, startDevServer } from '../../../src/temporal/dev-server.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';
import { readSettings } from '../../../src/config/settings.js';

const harness = useGatewayHarness();

// The start-up test widens the window between the build and the HTTP listener (bound after the gRPC
// server), which is otherwise a few milliseconds and often missed: the gRPC server takes its time.
const grpcStart = vi.hoisted(() => ({ delayMs: 0 }));
vi.mock('../../../src/gateway/http/grpc-server.js', async (importOriginal) => {
  const original = await importOriginal<typeof GrpcServer>();
  return {
    ...original,
    startGrpcServer: async (...args: Parameters<typeof original.startGrpcServer>) => {
      await new Promise((resolve) => setTimeout(resolve, grpcStart.delayMs));
      return original.startGrpcServer(...args);
    },
  };
});

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** A blocking SendMessage over JSON-RPC; its result. */
async function send(url: string, text: string, taskId?: string): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) } },
    }),
  });
  return ((await response.json()) as any).result;
}

async function waitingTaskId(url: string): Promise<string> {
  return (await send(url, EXPENSE_REQUEST)).task.id;
}

describe('open streams', () => {
  it('stop waiting on Temporal the moment their signal aborts', async () => {
    const taskId = await waitingTaskId(`${harness.gateway.url}/agents/expense-approval`);
    const controller = new AbortController();
    const workflows = new TaskWorkflows(harness.temporal, {
      agent: 'expense-approval',
      taskQueue: harness.worker.taskQueue,
    });
    const hub = new TaskEventHub(workflows);
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
    await send(url, 'approve', taskId);
    const seen = await Promise.all(followers);
    for (const states of seen) {
      expect(states).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'artifact', 'TASK_STATE_COMPLETED']);
    }
    expect(hub.openFeeds).toBe(0);
  });

  it('on tasks waiting for input hold no long-poll of their own, and an answer through the gateway wakes one at once', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const hub = harness.gateway.gateway.handlers.get('expense-approval')!.events;
    const before = hub.waitingFeeds;
    const taskIds = await Promise.all([waitingTaskId(url), waitingTaskId(url), waitingTaskId(url)]);
    const controller = new AbortController();
    const streams = taskIds.map(async (id) => {
      const states: string[] = [];
      try {
        for await (const event of sseRpc(url, 'SubscribeToTask', { id }, controller.signal)) {
          states.push(stateOf(event) ?? 'artifact');
        }
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
      return states;
    });
    await expect.poll(() => hub.waitingFeeds, { timeout: 20_000 }).toBe(before + 3);
    expect((await send(url, 'approve', taskIds[0])).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await streams[0]).toEqual([
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'artifact',
      'TASK_STATE_COMPLETED',
    ]);
    expect(hub.waitingFeeds).toBe(before + 2);
    controller.abort();
    expect(await Promise.all(streams.slice(1))).toEqual([['TASK_STATE_INPUT_REQUIRED'], ['TASK_STATE_INPUT_REQUIRED']]);
    await expect.poll(() => hub.waitingFeeds).toBe(before);
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
  it('is alive but not ready, and fails every transport fast and retriably', async () => {
    const { client } = createTemporalClient({ address: '127.0.0.1:1', connectTimeout: '1s' }, 'default');
    const gateway = await serveGateway({ client, agents });
    try {
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      const readyz = await fetch(`${gateway.url}/readyz`);
      expect(readyz.status).toBe(503);
      expect(await readyz.json()).toEqual({ status: 'unavailable', reason: 'Temporal is unreachable' });
      // The card needs no Temporal.
      expect((await fetch(`${gateway.url}/.well-known/agent-card.json`)).status).toBe(200);

      const jsonRpc = await fetch(`${gateway.url}/`, {
        method: 'POST',
        headers: V1,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      });
      expect(jsonRpc.status).toBe(503);
      expect(jsonRpc.headers.get('retry-after')).toBe('2');
      // The reason is machine-readable (google.rpc.ErrorInfo), so clients need not read the text.
      const unavailable = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', ...TEMPORAL_UNAVAILABLE };
      expect(((await jsonRpc.json()) as any).error).toMatchObject({
        code: -32603,
        message: 'Temporal is unreachable, retry later',
        data: [unavailable],
      });

      // Known down now: later calls are answered without a connection attempt (speed is bench/'s business).
      expect(gateway.gateway.health.knownDown).toBe(true);
      const rest = await fetch(`${gateway.url}/agents/echo/rest/tasks/x`, { headers: { 'A2A-Version': '1.0' } });
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('2');
      expect(((await rest.json()) as any).error).toMatchObject({
        code: 503,
        status: 'UNAVAILABLE',
        details: [unavailable],
      });

      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()],
        preferredTransports: ['GRPC'],
      });
      const grpc = await new ClientFactory(options).createFromUrl(`${gateway.url}/agents/echo/`);
      const code = await grpc.getTask({ id: 'x', tenant: 'echo' } as any).then(
        () => 'ok',
        (error: any) => error.code ?? error.cause?.code,
      );
      expect(code).toBe(14 /* UNAVAILABLE */);
    } finally {
      await gateway.close();
    }
  }, 30_000);
});

describe('with Temporal over its limits', () => {
  it('answers what Temporal refused as busy: 503, Retry-After and its reason, and stays ready', async () => {
    // A real dev server that takes one request a second: the gateway's short retries run out.
    const server = await startDevServer({ dynamicConfig: { 'frontend.namespaceRPS': 1 } });
    const { client, connection } = createTemporalClient({ address: server.address }, 'default');
    const gateway = await serveGateway({ client, agents });
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const response = await fetch(`${gateway.url}/agents/echo/rest/tasks/unknown-${i}`, {
            headers: { 'A2A-Version': '1.0' },
          });
          const { error } = (await response.json()) as any;
          return { status: response.status, retryAfter: response.headers.get('retry-after'), error };
        }),
      );
      const busy = answers.filter((answer) => answer.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(answers.filter((answer) => answer.status !== 503).map((answer) => answer.status)).toEqual(
        Array(answers.length - busy.length).fill(404),
      );
      const reason = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', ...TEMPORAL_BUSY };
      for (const answer of busy) {
        expect(answer).toMatchObject({
          retryAfter: '2',
          error: { code: 503, status: 'UNAVAILABLE', message: 'Temporal is busy, retry later', details: [reason] },
        });
      }
      // Temporal is up: a refusal over its limits does not make the gateway fail everything fast.
      expect(gateway.gateway.health.knownDown).toBe(false);
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    } finally {
      await gateway.close();
      await connection.close();
      await server.stop();
    }
  }, 60_000);

  it("a stream's history watch polls again while Temporal refuses its long poll as over the namespace limit", async () => {
    // Two long polls at a time in the namespace, and no worker: the four watchers' polls are all there is.
    const server = await startDevServer({ dynamicConfig: { 'frontend.namespaceCount': 2 } });
    const { client, connection } = createTemporalClient({ address: server.address }, 'default');
    const controller = new AbortController();
    // Counts the long polls Temporal refused, so that the test cannot pass without any.
    const service = client.workflowService;
    const longPoll = service.getWorkflowExecutionHistory.bind(service);
    let refusedByTemporal = 0;
    Object.assign(service, {
      getWorkflowExecutionHistory: (request: Parameters<typeof longPoll>[0]) =>
        longPoll(request).catch((error: unknown) => {
          if (isTemporalBusy(error)) refusedByTemporal += 1;
          throw error;
        }),
    });
    try {
      const workflowId = `over-limit-${randomUUID()}`;
      const handle = await client.workflow.start('anyWorkflow', { taskQueue: 'no-worker', workflowId });
      // Where a stream stands after the start: the workflow's first two events are known.
      const seen = { runId: handle.firstExecutionRunId, historyLength: 2 };
      const refused: string[] = [];
      const polls = Array.from({ length: 4 }, () =>
        new HistoryWatcher(client, workflowId, controller.signal, seen).poll().catch((error: Error) => {
          refused.push(error.message);
          throw error;
        }),
      );
      // Two polls are refused within the gateway's own retries (about half a second); then history grows.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await handle.signal('anything');
      expect(await Promise.all(polls)).toEqual(Array(4).fill({ closed: false }));
      expect(refused).toEqual([]);
      expect(refusedByTemporal).toBeGreaterThan(0);
    } finally {
      controller.abort();
      await connection.close();
      await server.stop();
    }
  }, 60_000);
});

describe('health', () => {
  it('is ready with Temporal up', async () => {
    const response = await fetch(`${harness.gateway.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });
});

describe('starting', () => {
  it('accepts its first connection only once it is built: every answer is the app\'s, none "starting"', async () => {
    const port = await freePort();
    grpcStart.delayMs = 500;
    const starting = startGateway({ client: harness.temporal, agents, port }).finally(() => (grpcStart.delayMs = 0));
    const statuses = new Set<number>();
    let done = false;
    const probes = (async () => {
      while (!done) {
        const response = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`, {
          signal: AbortSignal.timeout(5_000),
        }).catch((error: Error) => (error.name === 'TimeoutError' ? error : undefined));
        if (response instanceof Error) throw new Error('A request during start-up hung');
        if (!response) continue; // not listening yet
        statuses.add(response.status);
        await response.arrayBuffer();
      }
    })();
    const gateway = await starting;
    try {
      await expect.poll(() => statuses.has(200)).toBe(true);
      done = true;
      await probes;
      expect([...statuses]).toEqual([200]);
    } finally {
      done = true;
      await gateway.close();
    }
  });
});

describe('host names', () => {
  /** The status of the card asked for with `host` as the Host header (fetch() does not let a caller set it; node:http does). */
  const card = (host: string, base = harness.gateway.url) =>
    new Promise<number>((resolve, reject) => {
      const url = new URL(`${base}/.well-known/agent-card.json`);
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });

  it('answer the names A2A_ALLOWED_HOSTS lists, and no other', async () => {
    const { allowedHosts } = gatewaySettings(
      readSettings({ A2A_ALLOWED_HOSTS: 'agents.example.com, 127.0.0.1' }),
      'development',
      {},
    );
    const gateway = await startGateway({ client: harness.temporal, agents, grpcPort: false, allowedHosts });
    try {
      expect(await card('agents.example.com', gateway.url)).toBe(200);
      expect(await card('127.0.0.1', gateway.url)).toBe(200);
      expect(await card(`localhost:${new URL(gateway.url).port}`, gateway.url)).toBe(403);
    } finally {
      await gateway.close();
    }
  });

  it('on loopback, answers loopback host names only (DNS rebinding)', async () => {
    expect(await card(`localhost:${new URL(harness.gateway.url).port}`)).toBe(200);
    expect(await card('127.0.0.1')).toBe(200);
    expect(await card('attacker.example:80')).toBe(403);
  });
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
