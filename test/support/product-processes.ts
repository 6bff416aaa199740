/**
 * The fault suite's shared pieces: the product's own `worker` and `gateway` commands as child
 * processes (killed for real, SIGKILL included), a raw A2A JSON-RPC client, reads of Temporal
 * history, and the one-line figures every scenario prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { freePort } from '../../src/temporal/dev-server.js';
import { workflowIdForTask } from '../../src/protocol/contract.js';
import { testClient } from './worker.js';
import { LEDGER_DIR_ENV } from '../fixtures/fault/ledger-store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/fault/${name}`, import.meta.url));

/** Release 1 of the fault agents beside the example agents. */
const PROJECT_CONFIG = fixture('a2a-temporal.config.ts');
/** The same project after a deploy: release 2 of `fault-approval` and `fault-chat`. */
export const REDEPLOYED_CONFIG = fixture('redeployed.config.ts');
/** Release 2 without `patched()`: only ever replayed. */
export const UNPATCHED_AGENTS = fixture('agents-unpatched.ts');

/** A task queue of one test's own, so that tests running side by side never take each other's tasks. */
export function uniqueQueue(scenario: string): string {
  return `fault-${scenario}-${randomUUID().slice(0, 8)}`;
}

// ---------------------------------------------------------------------------------------------
// Processes

export interface ServeProcess {
  /** The gateway's base URL (empty for a worker). */
  readonly url: string;
  /** The process's last output, for failure messages. */
  output(): string;
  /** Every line the process logged at level error or above: kept whole, however much else it logs. */
  errorLines(): string[];
  /** Sends `signal` (SIGTERM by default) and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServeOptions {
  taskQueue: string;
  config?: string;
  /** Effects of the fault activities land here (see fixtures/ledger-store.ts). */
  ledgerDir?: string;
  /** More environment, e.g. authentication settings. */
  env?: Record<string, string>;
}

export interface GatewayOptions extends ServeOptions {
  /** Default: a free one. A gateway restarted on its port keeps its URL (and its clients). */
  port?: number;
  /** Serve gRPC on this port (default: no gRPC). */
  grpcPort?: number;
}

/** Everything started and not yet seen to exit, so that a failed test still leaves no process behind. */
const running = new Set<ChildProcess>();
const folders = new Set<string>();

/** SIGKILLs every process this test file started that still runs, and removes its folders (afterEach / afterAll). */
export async function cleanUp(): Promise<void> {
  await Promise.all([...running].map((child) => endChild(child, 'SIGKILL')));
  await Promise.all([...folders].map((dir) => rm(dir, { recursive: true, force: true })));
  folders.clear();
}

/**
 * The hooks every fault test file needs: a Temporal client for its checks, and every process it
 * started killed after each test, even a failed one.
 */
export function faultSuite(): { readonly temporal: Client } {
  const suite = {} as { temporal: Client };
  beforeAll(async () => {
    suite.temporal = await testClient();
  });
  afterEach(cleanUp);
  afterAll(async () => {
    await cleanUp();
    await suite.temporal?.connection.close();
  });
  return suite;
}

/** A gateway and a worker on a task queue of their own, with a fresh folder for side effects. */
export async function startProject(scenario: string) {
  const taskQueue = uniqueQueue(scenario);
  const ledgerDir = await mkdtemp(join(tmpdir(), 'a2a-fault-'));
  folders.add(ledgerDir);
  const [gateway, worker] = await Promise.all([startGateway({ taskQueue }), startWorker({ taskQueue, ledgerDir })]);
  return { taskQueue, ledgerDir, gateway, worker };
}

/** `a2a-temporal worker <config>`, ready once it says so (its workflow bundle built, polling next). */
export function startWorker(options: ServeOptions): Promise<ServeProcess> {
  return serve('worker', options, {}, /"worker started"/);
}

/** `a2a-temporal gateway <config>` on a free port, without authentication and (unless asked) without gRPC. */
export async function startGateway(options: GatewayOptions): Promise<ServeProcess> {
  const port = options.port ?? (await freePort());
  const env = {
    PORT: String(port),
    GRPC_PORT: options.grpcPort ? String(options.grpcPort) : 'off',
    HOST: '127.0.0.1',
    A2A_AUTH: 'none',
  };
  return serve('gateway', options, env, /"A2A gateway started"/, `http://127.0.0.1:${port}`);
}

const OUTPUT_KEPT = 20_000;
/** pino's number for level "error". */
const PINO_ERROR = 50;

async function serve(
  command: 'worker' | 'gateway',
  options: ServeOptions,
  extraEnv: Record<string, string>,
  ready: RegExp,
  url = '',
): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...extraEnv,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    A2A_TASK_QUEUE: options.taskQueue,
    // Readiness is read from the startup log line; JSON so that it does not depend on a terminal.
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    ...(options.ledgerDir && { [LEDGER_DIR_ENV]: options.ledgerDir }),
    ...options.env,
  };
  const child = spawn(process.execPath, ['bin/a2a-temporal.js', command, options.config ?? PROJECT_CONFIG], {
    cwd: ROOT,
    env,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  const errorLines: string[] = [];
  const errorLine = createInterface({ input: child.stdout! });
  errorLine.on('line', (line) => Number(/"level":(\d+)/.exec(line)?.[1]) >= PINO_ERROR && errorLines.push(line));
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    await waitFor(`${command} to start`, async () => ready.test(output) || child.exitCode !== null, {
      timeoutMs: 60_000,
      intervalMs: 50,
      describe: () => output.slice(-2000),
    });
  } catch (error) {
    await endChild(child, 'SIGKILL');
    throw error;
  }
  if (!ready.test(output)) throw new Error(`${command} exited before it was ready:\n${output}`);
  return {
    url,
    output: () => output,
    errorLines: () => errorLines,
    stop: (signal = 'SIGTERM') => endChild(child, signal),
  };
}

async function endChild(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    // A graceful stop that hangs is a finding, but must not leave the process behind.
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
  running.delete(child);
  return { code: child.exitCode, signal: child.signalCode };
}

// ---------------------------------------------------------------------------------------------
// A2A over JSON-RPC, as a strict client sends it

export interface RpcAnswer {
  httpStatus: number;
  retryAfter: string | null;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export async function rpc(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<RpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  const text = await response.text();
  let body: { result?: unknown; error?: RpcAnswer['error'] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = { error: { code: response.status, message: text.slice(0, 200) } };
  }
  return { httpStatus: response.status, retryAfter: response.headers.get('retry-after'), ...body };
}

export function userMessage(parts: unknown[], extra: Record<string, unknown> = {}) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra };
}

/** The task of a SendMessage answer, or a failure that says what came back instead. */
export function taskOf(answer: RpcAnswer): any {
  if (!answer.result?.task) throw new Error(`expected a task, got ${JSON.stringify(answer).slice(0, 500)}`);
  return answer.result.task;
}

export const agentUrl = (gateway: ServeProcess, agent: string) => `${gateway.url}/agents/${agent}`;

/** Polls GetTask until the task is in `state`. */
export async function waitForTaskState(
  url: string,
  taskId: string,
  state: string,
  options: { timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<any> {
  let task: any;
  await waitFor(
    `task ${taskId} to be ${state}`,
    async () => {
      task = (await rpc(url, 'GetTask', { id: taskId }, options.headers)).result;
      return task?.status?.state === state;
    },
    { timeoutMs: options.timeoutMs ?? 60_000, describe: () => `it is ${task?.status?.state ?? 'unreadable'}` },
  );
  return task;
}

// ---------------------------------------------------------------------------------------------
// Temporal history

const { EventType } = temporal.api.enums.v1;
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export async function historyOf(client: Client, taskId: string): Promise<HistoryEvent[]> {
  const history = await client.workflow.getHandle(workflowIdForTask(taskId)).fetchHistory();
  return history.events ?? [];
}

export function countEvents(events: HistoryEvent[], type: temporal.api.enums.v1.EventType): number {
  return events.filter((event) => event.eventType === type).length;
}

/** Workflow tasks that failed (a nondeterminism error among them), with their messages. */
export function workflowTaskFailures(events: HistoryEvent[]): string[] {
  return events
    .filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
    .map((event) => event.workflowTaskFailedEventAttributes?.failure?.message ?? 'unknown');
}

/** The IDs of the `patched()` calls a history recorded, in order (the product's own patches included). */
export function patchesOf(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (event.eventType !== EventType.EVENT_TYPE_MARKER_RECORDED || marker?.markerName !== 'core_patch') return [];
    const data = marker.details?.['patch-data']?.payloads?.[0]?.data;
    return data ? [(JSON.parse(Buffer.from(data).toString()) as { id: string }).id] : [];
  });
}

export { EventType };

// ---------------------------------------------------------------------------------------------
// Waiting and reporting

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number; describe?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${options.describe ? `: ${options.describe()}` : ''}`);
    }
    await sleep(options.intervalMs ?? 200);
  }
}

/** Waits until visibility lists at least `count` workflows for `query` (it is eventually consistent). */
export async function waitForVisibility(client: Client, query: string, count: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await client.workflow.count(query)).count >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`visibility never listed ${count} tasks for ${query}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 0, 1, ... n - 1. */
export const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export function tally(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${count} x ${value}`).join('; ');
}

/** Runs `work` over `items` with at most `limit` at a time, keeping the order of results. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** What a scenario tried, what survived and what was lost, on one line a CI log reader can grep. */
export function report(
  scenario: string,
  figures: { tried: string; survived: string; lost: string } & Record<string, string | number>,
): void {
  const { tried, survived, lost, ...more } = figures;
  const extra = Object.entries(more).map(([key, value]) => `${key}: ${value}`);
  console.log(
    [`[fault] ${scenario}`, `tried: ${tried}`, `survived: ${survived}`, `lost: ${lost}`, ...extra].join('\n  '),
  );
}
