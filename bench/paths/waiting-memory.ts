/**
 * Path 7: worker memory with many waiting tasks. Project: N expense-approval tasks at
 * input-required; raw: N workflows waiting in `condition`. Each worker is its own child process:
 * RSS from /proc before and after.
 */
import { waitingExpenseTask } from '../a2a.js';
import { interleave, pool, Sample, sleep } from '../measure.js';
import { rssOf } from '../processes.js';
import type { BenchPath } from './types.js';

const MB = 1024 * 1024;

export const waitingMemory: BenchPath = {
  title: '7. worker memory with N waiting tasks (raw: N workflows waiting in condition)',
  async run({ stack, options, log }) {
    const count = options.waitingTasks;
    if (count === 0) return [];
    const url = stack.agentUrl('expense-approval');
    const rawPid = stack.rawWorker.pid!;
    const projectPid = stack.projectWorker.pid!;
    const before = { raw: rssOf(rawPid), project: rssOf(projectPid) };
    const raw = new Sample();
    const project = new Sample();
    let made = 0;
    const progress = (size: number) => {
      made += size;
      log(`  ${made} of ${2 * count} waiting tasks/workflows created`);
    };
    await interleave(count, options.batches, {
      raw: async (size) => {
        await raw.batch(size, () => pool(size, options.concurrency, async () => void (await stack.raw.waiting())));
        progress(size);
      },
      project: async (size) => {
        await project.batch(size, () =>
          pool(size, options.concurrency, async () => void (await waitingExpenseTask(url))),
        );
        progress(size);
      },
    });
    await sleep(2000);
    const after = { raw: rssOf(rawPid), project: rssOf(projectPid) };
    const path = `7 worker, ${count} waiting`;
    return [
      {
        path,
        metric: 'worker RSS before',
        unit: 'MB',
        raw: before.raw / MB,
        project: before.project / MB,
        target: { kind: 'none' },
      },
      {
        path,
        metric: 'worker RSS after',
        unit: 'MB',
        raw: after.raw / MB,
        project: after.project / MB,
        target: { kind: 'none' },
      },
      {
        path,
        metric: 'RSS per waiting task',
        unit: 'KB',
        raw: (after.raw - before.raw) / 1024 / count,
        project: (after.project - before.project) / 1024 / count,
        target: { kind: 'ratio-at-most', value: 1.3 },
        note: `created at ${options.concurrency} in flight: raw ${raw.throughput.toFixed(0)}/s, project ${project.throughput.toFixed(0)}/s`,
      },
    ];
  },
};
