/**
 * Path 5: many SSE streams (SubscribeToTask) on distinct waiting tasks. The gateway runs in this
 * process and the streams' clients in the subscriber process, so this process's RSS growth and CPU
 * are the gateway's (plus its Temporal client). No raw comparison.
 */
import { waitingExpenseTask } from '../a2a.js';
import { pool, sleep } from '../measure.js';
import { cpuMsOf } from '../processes.js';
import type { BenchPath } from './types.js';

const MB = 1024 * 1024;

async function settledRss(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await sleep(200);
  }
  return process.memoryUsage.rss();
}

export const idleStreams: BenchPath = {
  title: '5. SSE streams on distinct waiting tasks: gateway memory and idle CPU',
  async run({ stack, options, log }) {
    const url = stack.agentUrl('expense-approval');
    const count = options.streams;
    const taskIds: string[] = [];
    await pool(count, options.concurrency, async () => void taskIds.push(await waitingExpenseTask(url)));
    log(`  ${count} waiting tasks created`);
    await sleep(1000);
    const idleRss = await settledRss();
    try {
      await stack.subscribers.open('idle', url, taskIds, 1, 60_000 + count * 60);
      log(`  ${count} streams open`);
      await sleep(2000);
      const streamsRss = await settledRss();

      const seconds = options.idleSeconds;
      const workerPid = stack.projectWorker.pid!;
      const workerCpuBefore = cpuMsOf(workerPid);
      const before = process.cpuUsage();
      await sleep(seconds * 1000);
      const used = process.cpuUsage(before);
      const workerCpuMs = cpuMsOf(workerPid) - workerCpuBefore;
      const cpuMs = (used.user + used.system) / 1000;
      const cpuPercent = (cpuMs / (seconds * 1000)) * 100;

      const path = `5 ${count} idle SSE streams`;
      const aboveIdle = (streamsRss - idleRss) / MB;
      return [
        {
          path,
          metric: 'gateway RSS above idle',
          unit: 'MB',
          project: aboveIdle,
          target: { kind: 'at-most', value: 100 },
          note: `idle ${(idleRss / MB).toFixed(0)} MB -> ${(streamsRss / MB).toFixed(0)} MB with the streams; ${((aboveIdle * 1024) / count).toFixed(1)} KB per stream`,
        },
        {
          path,
          metric: `gateway CPU, ${seconds} s idle`,
          unit: '% core',
          project: cpuPercent,
          target: { kind: 'at-most', value: 1, label: 'no measurable CPU (<= 1% core)' },
          note: `${cpuMs.toFixed(1)} ms CPU in ${seconds} s (${((cpuMs * 1000) / count / seconds).toFixed(2)} us per stream per second); project worker meanwhile ${workerCpuMs.toFixed(0)} ms`,
        },
      ];
    } finally {
      await stack.subscribers.close('idle');
    }
  },
};
