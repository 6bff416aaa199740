/**
 * Path 5: many SSE streams (SubscribeToTask) on distinct waiting tasks. The gateway runs in this
 * process and the streams' clients in the subscriber process, so this process's RSS growth and CPU
 * are the gateway's (plus its Temporal client). The raw floor, measured first and on its own: the
 * same number of streams on raw waiting workflows, held by bench/raw-fanout.ts (one history
 * long-poll per workflow, the plain Temporal way to learn that one changed, and the same keepalives).
 */
import { waitingExpenseTask } from '../a2a.js';
import { pool, sleep } from '../measure.js';
import { cpuMsOf } from '../processes.js';
import type { Stack } from '../stack.js';
import type { BenchPath } from './types.js';

const MB = 1024 * 1024;
/**
 * How long the streams stay open before the idle window: opening 1,000 streams allocates enough
 * that V8 compacts the heap once, some 20-40 s later (a memory-reducer GC of ~0.1-0.4 s). That is
 * the streams' opening cost, not idling: the window starts after it (its CPU is shown apart). A
 * quick run waits as long as its idle window.
 */
const SETTLE_SECONDS = 30;

async function settledRss(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await sleep(200);
  }
  return process.memoryUsage.rss();
}

interface IdleCost {
  rssAboveMb: number;
  idleRssMb: number;
  streamsRssMb: number;
  settleCpuMs: number;
  cpuMs: number;
  workerCpuMs: number;
}

/** Opens one stream per task at `url`, lets them settle, then measures this process while they idle. */
async function idleCost(
  stack: Stack,
  group: string,
  url: string,
  taskIds: string[],
  seconds: number,
  settleSeconds: number,
  workerPid: number,
): Promise<IdleCost> {
  await sleep(1000);
  const idleRss = await settledRss();
  try {
    await stack.subscribers.open(group, url, taskIds, 1, 60_000 + taskIds.length * 60);
    await sleep(2000);
    const streamsRss = await settledRss();
    const settleBefore = process.cpuUsage();
    await sleep(settleSeconds * 1000);
    const settleCpu = process.cpuUsage(settleBefore);
    const workerCpuBefore = cpuMsOf(workerPid);
    const before = process.cpuUsage();
    await sleep(seconds * 1000);
    const used = process.cpuUsage(before);
    return {
      idleRssMb: idleRss / MB,
      streamsRssMb: streamsRss / MB,
      rssAboveMb: (streamsRss - idleRss) / MB,
      settleCpuMs: (settleCpu.user + settleCpu.system) / 1000,
      cpuMs: (used.user + used.system) / 1000,
      workerCpuMs: cpuMsOf(workerPid) - workerCpuBefore,
    };
  } finally {
    await stack.subscribers.close(group);
  }
}

export const idleStreams: BenchPath = {
  title: '5. SSE streams on distinct waiting tasks: gateway memory and idle CPU (raw: bench/raw-fanout.ts)',
  async run({ stack, options, log }) {
    const count = options.streams;
    const seconds = options.idleSeconds;
    const settle = Math.min(SETTLE_SECONDS, seconds);
    const percentOf = (cpuMs: number) => (cpuMs / (seconds * 1000)) * 100;

    const workflowIds: string[] = [];
    await pool(count, options.concurrency, async () => void workflowIds.push(await stack.raw.waiting()));
    log(`  raw: ${count} waiting workflows created; a stream on each, then ${settle + seconds} s idle`);
    const raw = await idleCost(
      stack,
      'idle-raw',
      stack.rawFanout.url,
      workflowIds,
      seconds,
      settle,
      stack.rawWorker.pid!,
    );

    const url = stack.agentUrl('expense-approval');
    const taskIds: string[] = [];
    await pool(count, options.concurrency, async () => void taskIds.push(await waitingExpenseTask(url)));
    log(`  project: ${count} waiting tasks created; a stream on each, then ${settle + seconds} s idle`);
    const project = await idleCost(stack, 'idle', url, taskIds, seconds, settle, stack.projectWorker.pid!);

    const path = `5 ${count} idle SSE streams`;
    const memory = (side: IdleCost) =>
      `${side.idleRssMb.toFixed(0)} MB -> ${side.streamsRssMb.toFixed(0)} MB with the streams, ${((side.rssAboveMb * 1024) / count).toFixed(1)} KB per stream`;
    const cpu = (side: IdleCost) =>
      `${side.cpuMs.toFixed(0)} ms in ${seconds} s (${((side.cpuMs * 1000) / count / seconds).toFixed(2)} us per stream per second), ` +
      `in the first ${settle} s ${side.settleCpuMs.toFixed(0)} ms, its worker meanwhile ${side.workerCpuMs.toFixed(0)} ms`;
    return [
      {
        path,
        metric: 'gateway RSS above idle',
        unit: 'MB',
        raw: raw.rssAboveMb,
        project: project.rssAboveMb,
        target: { kind: 'at-most', value: 100 },
        note: `project: ${memory(project)}; raw: ${memory(raw)}`,
      },
      {
        path,
        metric: `gateway CPU, ${seconds} s idle`,
        unit: '% core',
        raw: percentOf(raw.cpuMs),
        project: percentOf(project.cpuMs),
        target: { kind: 'at-most', value: 1, label: 'no measurable CPU (<= 1% core)' },
        note: `from ${settle} s after the streams opened; project: ${cpu(project)}; raw: ${cpu(raw)}`,
      },
    ];
  },
};
