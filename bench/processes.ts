/** Child processes of the bench (the two workers, the subscribers) and what /proc says about them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childProfileFlags } from './cpu-profile.js';
import { withTimeout } from './measure.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** Resident set size of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** CPU time (user + system) a process has used, in ms (Linux /proc). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU that one side of a comparison costs, per process: the bench process (the raw side's client,
 * or the project's gateway, which runs here), that side's worker and the Temporal server. Only the
 * side's own batches are counted, so the two sides' figures compare op for op.
 */
export class CpuSplit {
  private readonly used = { here: 0, worker: 0, server: 0 };
  private ops = 0;

  constructor(
    private readonly workerPid: number,
    private readonly serverPid: number | undefined,
  ) {}

  async during(ops: number, run: () => Promise<void>): Promise<void> {
    const here = process.cpuUsage();
    const worker = cpuMsOf(this.workerPid);
    const server = this.serverPid === undefined ? 0 : cpuMsOf(this.serverPid);
    await run();
    const spent = process.cpuUsage(here);
    this.used.here += (spent.user + spent.system) / 1000;
    this.used.worker += cpuMsOf(this.workerPid) - worker;
    if (this.serverPid !== undefined) this.used.server += cpuMsOf(this.serverPid) - server;
    this.ops += ops;
  }

  /** "client 1.2 + worker 0.8 + server 2.1 = 4.1 ms CPU per op", with `hereName` for the bench process. */
  describe(hereName: string): string {
    const per = (ms: number) => ms / Math.max(1, this.ops);
    const parts: [string, number][] = [
      [hereName, per(this.used.here)],
      ['worker', per(this.used.worker)],
      ...(this.serverPid === undefined ? [] : [['server', per(this.used.server)] as [string, number]]),
    ];
    const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
    return `${parts.map(([name, ms]) => `${name} ${ms.toFixed(1)}`).join(' + ')} = ${total.toFixed(1)} ms CPU per op`;
  }
}

/** Signals a child and waits for it to exit; SIGKILL after 10 s. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function exitedEarly(child: ChildProcess, what: string): Promise<never> {
  return new Promise((_, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`${what} exited early (${code ?? signal})`))),
  );
}

/** The project's worker with the example agents and activities, as `npm run worker` runs it. */
export function startProjectWorker(temporalAddress: string, taskQueue: string, profileDir?: string): ChildProcess {
  const args = [...childProfileFlags(profileDir), 'bin/a2a-temporal.js', 'worker', 'examples/a2a-temporal.config.ts'];
  return spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      A2A_TASK_QUEUE: taskQueue,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
    stdio: 'inherit',
  });
}

/**
 * The raw floor's worker (bench/raw-worker.ts); resolves once it polls. `maxCached`: its workflow
 * cache's size; `profileDir`: where it writes its CPU profiles (one per thread) when it exits.
 */
export function startRawWorker(
  temporalAddress: string,
  taskQueue: string,
  maxCached?: number,
  profileDir?: string,
): Promise<ChildProcess> {
  const env = {
    TEMPORAL_ADDRESS: temporalAddress,
    RAW_TASK_QUEUE: taskQueue,
    ...(maxCached !== undefined && { RAW_MAX_CACHED_WORKFLOWS: String(maxCached) }),
  };
  return startReadyChild('raw worker', 'raw-worker.ts', env, profileDir);
}

/**
 * The project's worker with a workflow cache of `maxCached` (bench/cold-worker.ts; path 8), else as
 * `npm run worker` runs it; `env` adds to its environment (the model's endpoint). Resolves once it
 * polls. `profileDir`: where it writes its CPU profiles (one per thread) when it exits.
 */
export function startColdProjectWorker(
  temporalAddress: string,
  taskQueue: string,
  maxCached: number,
  env: Record<string, string> = {},
  profileDir?: string,
): Promise<ChildProcess> {
  const workerEnv = {
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    A2A_TASK_QUEUE: taskQueue,
    A2A_MAX_CACHED_WORKFLOWS: String(maxCached),
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    ...env,
  };
  return startReadyChild('cold project worker', 'cold-worker.ts', workerEnv, profileDir);
}

/** A bench child process (`node --import tsx bench/<script>`) that says "ready" over IPC once it polls. */
async function startReadyChild(
  what: string,
  script: string,
  env: Record<string, string>,
  profileDir?: string,
): Promise<ChildProcess> {
  const args = [
    ...childProfileFlags(profileDir),
    '--import',
    'tsx',
    fileURLToPath(new URL(`./${script}`, import.meta.url)),
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    await withTimeout(
      `${what} start`,
      120_000,
      Promise.race([new Promise<void>((resolve) => child.once('message', () => resolve())), exitedEarly(child, what)]),
    );
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    throw error;
  }
  return child;
}

/** A second gateway as its own process (`a2a-temporal gateway`, the example agents), serving `taskQueue`; its URL once it answers. */
export async function startGatewayProcess(
  temporalAddress: string,
  taskQueue: string,
  port: number,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['bin/a2a-temporal.js', 'gateway', 'examples/a2a-temporal.config.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      GRPC_PORT: 'off',
      HOST: '127.0.0.1',
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: 'default',
      A2A_TASK_QUEUE: taskQueue,
      A2A_AUTH: 'none',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
    stdio: 'inherit',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the second gateway exited (${child.exitCode})`);
    if (attempt > 300) {
      await stopChild(child, 'SIGKILL');
      throw new Error('the second gateway did not start within 60 s');
    }
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
