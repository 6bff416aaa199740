/**
 * Whether a stranger can tell a task that exists from one that does not by how long the gateway
 * takes to say TaskNotFound (issue 29, item 5). A real dev server, the project's worker (child
 * process) and an in-process gateway with two API-key principals: alice creates waiting tasks, bob
 * calls each read path on them and on random IDs, interleaved, and the medians are printed.
 *   node --import tsx bench/owner-timing.ts [rounds]    (default 50)
 */
import { Client, Connection } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { sleep } from './measure.js';
import { EXPENSE_REQUEST } from './a2a.js';
import { startProjectWorker, stopChild } from './processes.js';

const ROUNDS = Number(process.argv[2] ?? 50);
const TASK_QUEUE = 'bench-owner-timing';
const EXISTING_TASKS = 10;

process.env.LOG_LEVEL ??= 'warn';
process.env.LOG_FORMAT ??= 'json';
const { startDevServer } = await import('../src/temporal/dev-server.js');
const { startGateway } = await import('../src/gateway/server.js');
const { createAuthenticator } = await import('../src/gateway/auth/authenticator.js');
const { hashApiKey } = await import('../src/gateway/auth/settings.js');
const { default: agents } = await import('../examples/agents/index.js');

const keyOf = (person: string) => `key-of-${person}`;
const as = (person: string) => ({ 'x-api-key': keyOf(person) });

/** One call through the gateway: its HTTP status and JSON-RPC error code, and how long it took. */
interface Timed {
  ms: number;
  outcome: string;
}

type Call = (taskId: string, headers: Record<string, string>) => Promise<string>;

const server = await startDevServer();
const worker = startProjectWorker(server.address, TASK_QUEUE);
const connection = await Connection.connect({ address: server.address });
const gateway = await startGateway({
  client: new Client({ connection }),
  agents,
  grpcPort: false,
  taskQueue: TASK_QUEUE,
  authenticator: createAuthenticator({
    methods: ['api-key'],
    apiKeys: ['alice', 'bob'].map((principal) => ({ sha256: hashApiKey(keyOf(principal)), principal, groups: [] })),
  }),
});
const agentUrl = `${gateway.url}/agents/expense-approval`;

async function rpc(method: string, params: unknown, headers: Record<string, string>): Promise<any> {
  const response = await fetch(agentUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  return response.json();
}

/** A JSON-RPC call's outcome: 'ok' or its error code. */
const rpcCall =
  (method: string, params: (taskId: string) => unknown): Call =>
  async (taskId, headers) => {
    const body = await rpc(method, params(taskId), headers);
    return body.error ? String(body.error.code) : 'ok';
  };

/** An HTTP+JSON call's outcome: its status (the whole body read, a stream included). */
const restCall =
  (method: string, path: (taskId: string) => string): Call =>
  async (taskId, headers) => {
    const response = await fetch(`${agentUrl}/rest${path(taskId)}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
      ...(method === 'POST' && { body: '{}' }),
    });
    await response.text();
    return String(response.status);
  };

const message = (text: string, taskId?: string) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) },
});

const PATHS: Record<string, Call> = {
  GetTask: rpcCall('GetTask', (id) => ({ id })),
  SubscribeToTask: restCall('GET', (id) => `/tasks/${id}:subscribe`),
  CancelTask: rpcCall('CancelTask', (id) => ({ id })),
  'SendMessage (reply)': rpcCall('SendMessage', (id) => message('approve', id)),
  ListTaskPushNotificationConfigs: rpcCall('ListTaskPushNotificationConfigs', (id) => ({ taskId: id })),
};

async function timed(call: Call, taskId: string, headers: Record<string, string>): Promise<Timed> {
  const start = performance.now();
  const outcome = await call(taskId, headers);
  return { ms: performance.now() - start, outcome };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function waitingTask(): Promise<string> {
  // The worker bundles its workflows on start: the first message may wait for it.
  for (let attempt = 1; ; attempt++) {
    const body = await rpc('SendMessage', message(EXPENSE_REQUEST), as('alice'));
    if (body.result?.task?.status?.state === 'TASK_STATE_INPUT_REQUIRED') return body.result.task.id as string;
    if (attempt >= 10) throw new Error(`no waiting task: ${JSON.stringify(body)}`);
    await sleep(1000);
  }
}

try {
  const tasks: string[] = [];
  for (let i = 0; i < EXISTING_TASKS; i++) tasks.push(await waitingTask());
  console.log(`${ROUNDS} rounds; bob on alice's waiting tasks vs random IDs; median ms (outcomes)`);
  for (const [name, call] of Object.entries(PATHS)) {
    const existing: Timed[] = [];
    const missing: Timed[] = [];
    const owner: Timed[] = [];
    for (let round = -5; round < ROUNDS; round++) {
      const taskId = tasks[(round + EXISTING_TASKS) % EXISTING_TASKS]!;
      // Interleaved, so drift in the machine's load falls on both sides alike; the first rounds warm up.
      const pair = [await timed(call, taskId, as('bob')), await timed(call, randomUUID(), as('bob'))] as const;
      const own = name === 'GetTask' ? await timed(call, taskId, as('alice')) : undefined;
      if (round < 0) continue;
      existing.push(pair[0]);
      missing.push(pair[1]);
      if (own) owner.push(own);
    }
    const show = (runs: Timed[]) =>
      `${median(runs.map((r) => r.ms)).toFixed(1)} (${[...new Set(runs.map((r) => r.outcome))].join(',')})`;
    const ownLine = owner.length > 0 ? `   owner's own: ${show(owner)}` : '';
    console.log(`${name.padEnd(32)} existing: ${show(existing)}   random: ${show(missing)}${ownLine}`);
  }
} finally {
  await gateway.close();
  await connection.close();
  await stopChild(worker);
  await server.stop();
}
