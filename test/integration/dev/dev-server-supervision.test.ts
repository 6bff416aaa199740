/**
 * `a2a-temporal dev` supervises its Temporal dev server: SIGKILL it under a task that waits for a
 * human, and the stack restarts it on the same database file; the worker and the gateway, left
 * running, carry the task to completion. A stop during a restart leaves no process behind.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevStack, type RunningDevStack } from '../../../src/dev/dev-stack.js';
import { freePort, portInUse } from '../../../src/temporal/dev-server.js';
import { EXPENSE_REQUEST } from '../../support/gateway-harness.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { readSettings } from '../../../src/config/settings.js';

const temp = useTempDirs();

interface RpcTask {
  id: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
}

const started = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);

interface TestStack {
  stack: RunningDevStack;
  /** What the stack printed so far. */
  printed(): string;
  dbFile: string;
  ports: { gateway: number; temporal: number; ui: number };
}

/** `a2a-temporal dev` on the examples, on free ports and a fresh database file. */
async function startTestStack(): Promise<TestStack> {
  const dbFile = join(temp.make('a2a-supervision-'), 'temporal.db');
  const ports = { gateway: await freePort(), temporal: await freePort(), ui: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(ports.gateway),
    GRPC_PORT: 'off',
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    A2A_DATA_DB: dbFile,
  };
  delete env.TEMPORAL_ADDRESS;
  let printed = '';
  const stack = await startDevStack({
    config: 'examples',
    env,
    settings: readSettings(env),
    print: (text) => (printed += text),
  });
  log(`stack up: dev server pid ${stack.devServerPid}, gateway ${stack.ready.gatewayUrl}`);
  return { stack, printed: () => printed, dbFile, ports };
}

/** The lines the stack printed about its dev server (not the banner). */
function supervisionLines(printed: string): string[] {
  return printed.split('\n').filter((line) => line.startsWith('The Temporal dev server'));
}

/** No dev server on the stack's database file, and its ports free. */
async function expectNothingLeft({ dbFile, ports }: TestStack): Promise<void> {
  expect(devServersOn(dbFile)).toEqual([]);
  for (const port of Object.values(ports)) expect(await portInUse(port)).toBe(false);
  log('no dev server on the database file; the Temporal, UI and gateway ports are free');
}

async function sendMessage(gatewayUrl: string, message: Record<string, unknown>): Promise<RpcTask> {
  const response = await fetch(`${gatewayUrl}/agents/expense-approval`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', ...message } },
    }),
  });
  const body = (await response.json()) as { result?: { task?: RpcTask }; error?: unknown };
  if (!body.result?.task) throw new Error(`SendMessage failed: ${JSON.stringify(body)}`);
  return body.result.task;
}

/** Process ids of Temporal dev servers on `dbFile`. */
function devServersOn(dbFile: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('start-dev') && line.includes(dbFile))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a2a-temporal dev supervises its Temporal dev server', () => {
  let running: TestStack;
  beforeAll(async () => {
    running = await startTestStack();
  });
  afterAll(async () => {
    await running?.stack.stop();
  });

  it('restarts a killed dev server on the same database, and the waiting tasks then complete', async () => {
    const { stack } = running;
    const send = () => sendMessage(stack.ready.gatewayUrl, { parts: [{ text: EXPENSE_REQUEST }] });
    const waiting = await Promise.all([send(), send(), send()]);
    expect(waiting.map((task) => task.status.state)).toEqual(waiting.map(() => 'TASK_STATE_INPUT_REQUIRED'));
    log(`tasks ${waiting.map((task) => task.id).join(', ')} wait for approval`);

    const killed = stack.devServerPid!;
    process.kill(killed, 'SIGKILL');
    log(`SIGKILLed the dev server (pid ${killed})`);
    await expect.poll(running.printed, { timeout: 30_000, interval: 100 }).toContain('dev server is back');
    const restarted = stack.devServerPid!;
    log(`the stack restarted it as pid ${restarted}, saying:\n  ${supervisionLines(running.printed()).join('\n  ')}`);
    expect(running.printed()).toMatch(
      /The Temporal dev server died \(killed by SIGKILL\)\. Restarting it on the same database/,
    );
    expect(restarted).not.toBe(killed);
    expect(alive(killed)).toBe(false);

    const replied = await Promise.all(
      waiting.map((task) => sendMessage(stack.ready.gatewayUrl, { taskId: task.id, parts: [{ text: 'approve' }] })),
    );
    log(
      `replied "approve" to each through the same gateway and worker: ${replied.map((t) => t.status.state).join(', ')}`,
    );
    for (const task of replied) {
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.status.message?.parts[0]?.text).toMatch(/^Approved: 120 USD/);
    }
  });

  it('keeps trying, with a growing delay, while the dev server cannot start', async () => {
    const before = running.printed().length;
    const since = () => running.printed().slice(before);
    const killed = running.stack.devServerPid!;
    process.kill(killed, 'SIGKILL');
    await expect.poll(() => alive(killed), { interval: 10 }).toBe(false);
    // Something else takes the Temporal port before the restart: the new dev server cannot bind it.
    // It hangs up on every connection (the worker's, the gateway's), so that close() is prompt.
    const squatter = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(running.ports.temporal, '127.0.0.1', resolve));
    log(`SIGKILLed the dev server (pid ${killed}) and took its port ${running.ports.temporal}`);
    await expect.poll(since, { timeout: 30_000, interval: 50 }).toContain('failed to restart');
    await new Promise<void>((resolve) => squatter.close(() => resolve()));
    log(`the restart failed, the stack said so and will retry; freed the port`);
    await expect.poll(since, { timeout: 30_000, interval: 100 }).toContain('dev server is back');
    log(
      `the stack restarted it as pid ${running.stack.devServerPid}, saying:\n  ${supervisionLines(since()).join('\n  ')}`,
    );
    const firstDelay = Number(/ in ([\d.]+) s;/.exec(since())?.[1]);
    const retryDelay = Number(/Retrying in ([\d.]+) s\./.exec(since())?.[1]);
    expect(retryDelay).toBe(2 * firstDelay);

    const task = await sendMessage(running.stack.ready.gatewayUrl, { parts: [{ text: EXPENSE_REQUEST }] });
    log(`a new task after the restart: ${task.status.state}`);
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('stopped while it starts a new dev server, leaves no process behind', async () => {
    const killed = running.stack.devServerPid!;
    process.kill(killed, 'SIGKILL');
    log(`SIGKILLed the dev server (pid ${killed}) again`);
    // Stop once the replacement process exists, before it answers: the hardest moment to clean up.
    const replacement = () => devServersOn(running.dbFile).filter((pid) => pid !== killed);
    await expect.poll(replacement, { timeout: 30_000, interval: 20 }).not.toEqual([]);
    log(`replacement dev server spawned (pid ${replacement().join(', ')}); stopping the stack`);
    await running.stack.stop();
    log('stack stopped');
    await expectNothingLeft(running);
  });
});

describe('a2a-temporal dev, stopped while it waits to restart its dev server', () => {
  it('starts no new dev server and leaves no process behind', async () => {
    const running = await startTestStack();
    try {
      const killed = running.stack.devServerPid!;
      process.kill(killed, 'SIGKILL');
      log(`SIGKILLed the dev server (pid ${killed})`);
      await expect.poll(running.printed, { timeout: 10_000, interval: 10 }).toContain('dev server died');
      log('the stack said it would restart it; stopping the stack during the delay');
      await running.stack.stop();
      log('stack stopped');
      // Longer than the restart delay: a restart that stop() failed to cancel would have begun by then.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(running.printed()).not.toContain('dev server is back');
      await expectNothingLeft(running);
    } finally {
      await running.stack.stop();
    }
  });
});
