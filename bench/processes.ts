/** Child processes of the bench (the two workers, the subscribers) and what /proc says about them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
export function startProjectWorker(temporalAddress: string, taskQueue: string): ChildProcess {
  return spawn(process.execPath, ['bin/a2a-temporal.js', 'worker', 'examples/a2a-temporal.config.ts'], {
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

/** The raw floor's worker (bench/raw-worker.ts); resolves once it polls. */
export async function startRawWorker(temporalAddress: string, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./raw-worker.ts', import.meta.url))],
    {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress, RAW_TASK_QUEUE: taskQueue },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  try {
    await withTimeout(
      'raw worker start',
      120_000,
      Promise.race([
        new Promise<void>((resolve) => child.once('message', () => resolve())),
        exitedEarly(child, 'raw worker'),
      ]),
    );
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    throw error;
  }
  return child;
}
