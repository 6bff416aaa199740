/**
 * Hostile input: over 2,000 malformed requests over JSON-RPC, HTTP+JSON and gRPC against a real
 * gateway and worker (test/support/hostile-cases.ts). Each must be refused as the client's mistake, promptly:
 * no HTTP 5xx, no JSON-RPC -32603, no gRPC UNKNOWN/INTERNAL/UNAVAILABLE, no internal text (stack
 * frames, Temporal's or Node's error text) — and no task created or changed, and no memory kept.
 *
 * Memory is the heap of this process (the gateway runs in it, beside the test worker), measured after
 * a full garbage collection: once after a warm-up round of every case kind, once after all of them.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as grpc from '@grpc/grpc-js';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';
import {
  grpcCases,
  grpcCasesBeyondTheEdges,
  jsonRpcCases,
  prng,
  restCases,
  type Case,
  type GrpcCase,
  type HttpCase,
  type Targets,
} from '../../support/hostile-cases.js';

const SEED = 20_251_122;
const CONCURRENCY = 8;
/** Generous on two busy cores; a refusal takes milliseconds, Temporal's retries take 20 s. */
const ANSWER_WITHIN_MS = 10_000;
const MAX_HEAP_GROWTH_BYTES = 32 * 1024 * 1024;
const AGENT = 'expense-approval';

/** What a refusal must never contain: stack frames, and error text from Temporal, Node or the SDK. */
const INTERNAL_TEXT = [
  /\n\s+at \S/,
  /\bat \S+ \(\S+:\d+:\d+\)/,
  /Temporal/,
  /safeParse/,
  /Buffer/,
  /Maximum call stack/,
  /\b(Type|Range|Reference|Syntax)Error\b/,
  /Cannot (read|set|create) propert/,
  /is not a function/,
  /Internal error/,
  /Update-With-Start/,
  /\b\d+ [A-Z_]{4,}: /,
  /node_modules|\.ts:\d+|\.js:\d+/,
];

/** gRPC codes that tell of a server fault, not a client mistake. */
const SERVER_FAULTS = new Set([
  grpc.status.UNKNOWN,
  grpc.status.INTERNAL,
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
]);

interface Outcome {
  /** e.g. "HTTP 200 -32602", "HTTP 400 INVALID_ARGUMENT", "INVALID_ARGUMENT". */
  label: string;
  /** Everything the client got back that a person might read. */
  text: string;
  ms: number;
  accepted: boolean;
  serverFault: boolean;
}

const harness = useGatewayHarness();
/** One per test: a client whose connection a hostile answer broke must not fail the next test. */
let grpcClient: grpc.Client;
let targets: Targets;
let agentUrl: URL;

beforeAll(async () => {
  agentUrl = new URL(`${harness.gateway.url}/agents/${AGENT}`);
  const sent = await post('', {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'hostile-setup', role: 'ROLE_USER', parts: [{ text: EXPENSE_REQUEST }] } },
  });
  const task = JSON.parse(sent.text).result.task;
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  targets = { agent: AGENT, waitingTaskId: task.id };
});

beforeEach(() => {
  grpcClient = new grpc.Client(harness.gateway.grpcAddress!, grpc.credentials.createInsecure());
});

afterEach(() => grpcClient.close());

describe('hostile input', () => {
  it(
    'refuses every malformed request as the client’s mistake, at once, changing nothing',
    { timeout: 180_000 },
    async () => {
      const random = prng(SEED);
      const cases: Case[] = [
        ...jsonRpcCases(targets, random),
        ...restCases(targets, random),
        ...grpcCases(targets, random),
      ];
      const before = await footprint();
      // A round of every kind first: what stays allocated after it (pools, caches, JIT) is not a leak.
      await runAll(kindsOf(cases));
      const heapBefore = heapAfterGc();
      const started = Date.now();
      const outcomes = await runAll(cases);
      const seconds = (Date.now() - started) / 1000;
      const heapAfter = heapAfterGc();
      const after = await footprint();

      printSummary(cases, outcomes, seconds, heapBefore, heapAfter);
      expect(cases.length).toBeGreaterThanOrEqual(2_000);
      expect(failures(cases, outcomes)).toEqual([]);
      expect(after).toEqual(before);
      expect(heapAfter - heapBefore).toBeLessThan(MAX_HEAP_GROWTH_BYTES);
    },
  );

  // Red until sdk-compat/grpc-decoding.ts refuses undecodable requests and request-handler.ts checks task IDs and
  // configuration.historyLength (files beyond these edges).
  it(
    'refuses gRPC requests that the SDK cannot decode or that name an impossible task',
    { timeout: 120_000 },
    async () => {
      const cases = grpcCasesBeyondTheEdges(targets, prng(SEED));
      const outcomes = await runAll(cases);
      printSummary(cases, outcomes);
      expect(failures(cases, outcomes)).toEqual([]);
    },
  );
});

/** Why each outcome that is not a prompt, clean refusal fails, one line per case. */
function failures(cases: readonly Case[], outcomes: readonly Outcome[]): string[] {
  return cases.flatMap((testCase, i) => {
    const outcome = outcomes[i]!;
    const problems = [
      outcome.accepted && 'accepted',
      outcome.serverFault && 'a server fault',
      outcome.ms > ANSWER_WITHIN_MS && `${outcome.ms} ms`,
      INTERNAL_TEXT.some((pattern) => pattern.test(outcome.text)) && 'internal text',
    ].filter(Boolean);
    return problems.length === 0
      ? []
      : [
          `${testCase.transport} ${testCase.name}: ${problems.join(', ')} (${outcome.label}: ${outcome.text.slice(0, 300)})`,
        ];
  });
}

/** The tasks there are and the waiting task's history: no invalid request may change either. */
async function footprint() {
  // Visibility lags a little behind: let what the previous requests did (they should do nothing) show.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const { count } = await harness.temporal.workflow.count(`TaskQueue = '${harness.worker.taskQueue}'`);
  const handle = harness.temporal.workflow.getHandle(workflowIdForTask(targets.waitingTaskId));
  const { events } = await handle.fetchHistory();
  const waiting = JSON.parse(
    (await post('', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: targets.waitingTaskId } })).text,
  );
  return { tasks: count, waitingTaskEvents: events?.length, waitingTaskState: waiting.result.status.state };
}

function kindsOf(cases: readonly Case[]): Case[] {
  const seen = new Set<string>();
  return cases.filter((testCase) => {
    const kind = `${testCase.transport} ${'path' in testCase ? testCase.path.split('?')[0] : testCase.method}`;
    return !seen.has(kind) && Boolean(seen.add(kind));
  });
}

const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

function heapAfterGc(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

async function runAll(cases: readonly Case[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) outcomes[i] = await run(cases[i]!);
  };
  // The SDK's adapters print every refused stream to the console: thousands of lines that tell nothing here.
  const quiet = [
    vi.spyOn(console, 'error').mockImplementation(() => {}),
    vi.spyOn(console, 'warn').mockImplementation(() => {}),
  ];
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    quiet.forEach((spy) => spy.mockRestore());
  }
  return outcomes;
}

function run(testCase: Case): Promise<Outcome> {
  return testCase.transport === 'gRPC' ? runGrpc(testCase) : runHttp(testCase);
}

// ---------------------------------------------------------------------------------------------
// HTTP: node:http rather than fetch, which refuses a GET with a body.

interface HttpAnswer {
  status: number;
  type: string;
  text: string;
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const target = { host: agentUrl.hostname, port: agentUrl.port, path: `${agentUrl.pathname}${path}` };
    // A GET body needs its length said: Node's client neither chunks it nor counts it.
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest(
      { ...target, method, headers: { ...headers, ...length }, timeout: ANSWER_WITHIN_MS + 5_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            type: res.headers['content-type'] ?? '',
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.end(body);
  });
}

function post(path: string, body: unknown): Promise<HttpAnswer> {
  return send('POST', path, { 'content-type': 'application/json', 'a2a-version': '1.0' }, JSON.stringify(body));
}

async function runHttp(testCase: HttpCase): Promise<Outcome> {
  const started = Date.now();
  let answer: HttpAnswer;
  try {
    answer = await send(testCase.method, testCase.path, testCase.headers, testCase.body);
  } catch (error) {
    return { label: 'no answer', text: String(error), ms: Date.now() - started, accepted: false, serverFault: true };
  }
  const ms = Date.now() - started;
  const bodies = answer.type.startsWith('text/event-stream') ? sseEvents(answer.text) : [parseJson(answer.text)];
  const serverFault = answer.status >= 500;
  if (testCase.transport === 'HTTP+JSON') {
    const status = bodies.map((body) => body?.error?.status).find(Boolean) ?? '';
    const accepted = answer.status < 400 && !bodies.some((body) => body?.error);
    return { label: `HTTP ${answer.status} ${status}`.trim(), text: answer.text, ms, accepted, serverFault };
  }
  const codes = bodies.map((body) => body?.error?.code).filter((code) => code !== undefined);
  const accepted = bodies.some((body) => body && 'result' in body);
  const fault = serverFault || codes.includes(-32603);
  return {
    label: `HTTP ${answer.status} ${codes.join(',') || (accepted ? 'result' : '')}`.trim(),
    text: answer.text,
    ms,
    accepted,
    serverFault: fault,
  };
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sseEvents(text: string): any[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => parseJson(line.slice(5)));
}

// ---------------------------------------------------------------------------------------------
// gRPC: bytes as they are, over a generic client.

const asIs = (bytes: Buffer) => bytes;

function runGrpc(testCase: GrpcCase): Promise<Outcome> {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(testCase.metadata)) metadata.set(key, value);
  const path = `/lf.a2a.v1.A2AService/${testCase.method}`;
  const options = { deadline: Date.now() + ANSWER_WITHIN_MS + 5_000 };
  const started = Date.now();
  const outcome = (error: grpc.ServiceError | null, messages: number): Outcome => {
    const code = error?.code ?? grpc.status.OK;
    return {
      label: grpc.status[code] ?? String(code),
      text: error?.details ?? '',
      ms: Date.now() - started,
      accepted: !error || messages > 0,
      serverFault: SERVER_FAULTS.has(code),
    };
  };
  const body = Buffer.from(testCase.body);
  return new Promise((resolve) => {
    if (!testCase.streaming) {
      grpcClient.makeUnaryRequest(path, asIs, asIs, body, metadata, options, (error) => resolve(outcome(error, 0)));
      return;
    }
    let messages = 0;
    const stream = grpcClient.makeServerStreamRequest(path, asIs, asIs, body, metadata, options);
    stream.on('data', () => messages++);
    stream.on('error', (error: grpc.ServiceError) => resolve(outcome(error, messages)));
    stream.on('end', () => resolve(outcome(null, messages)));
  });
}

// ---------------------------------------------------------------------------------------------

function printSummary(
  cases: readonly Case[],
  outcomes: readonly Outcome[],
  seconds?: number,
  heapBefore?: number,
  heapAfter?: number,
) {
  const byTransport = new Map<string, Map<string, number>>();
  cases.forEach((testCase, i) => {
    const counts = byTransport.get(testCase.transport) ?? new Map<string, number>();
    const label = outcomes[i]!.label;
    counts.set(label, (counts.get(label) ?? 0) + 1);
    byTransport.set(testCase.transport, counts);
  });
  const lines = [`${cases.length} hostile requests${seconds === undefined ? '' : ` in ${seconds.toFixed(1)} s`}`];
  for (const [transport, counts] of byTransport) {
    const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
    const sorted = [...counts].sort((a, b) => b[1] - a[1]).map(([label, n]) => `${n} ${label}`);
    lines.push(`  ${transport}: ${total} (${sorted.join('; ')})`);
  }
  const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
  lines.push(`  slowest answer: ${slowest} ms`);
  if (heapBefore !== undefined && heapAfter !== undefined) {
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    lines.push(
      `  heap after GC: ${mb(heapBefore)} after warm-up, ${mb(heapAfter)} after all (${mb(heapAfter - heapBefore)})`,
    );
  }
  console.log(lines.join('\n'));
}
