/**
 * Path 6: one page of 50 tasks. Project: ListTasks (pageSize 50) on the expense-approval agent, with
 * full tasks (the default: each row read whole) and with historyLength 0 (rows from the summary memo).
 * Raw: `client.workflow.list` of 50 waiting workflows through visibility.
 */
import { rpc, waitingExpenseTask } from '../a2a.js';
import { interleave, pool, Sample, sleep } from '../measure.js';
import type { BenchPath } from './types.js';

const PAGE = 50;

export const listTasks: BenchPath = {
  title: `6. ListTasks, a page of ${PAGE} (raw: client.workflow.list of ${PAGE})`,
  async run({ stack, options }) {
    const url = stack.agentUrl('expense-approval');
    const listProject = async (params: Record<string, unknown> = {}) => {
      const result = await rpc(url, 'ListTasks', { pageSize: PAGE, ...params });
      return (result.tasks ?? []).length as number;
    };
    // At least a page on each side, visible (visibility is eventually consistent).
    await pool(PAGE, options.concurrency, async () => void (await stack.raw.waiting()));
    await pool(PAGE, options.concurrency, async () => void (await waitingExpenseTask(url)));
    for (let attempt = 0; ; attempt++) {
      const [raw, project] = [await stack.raw.list(PAGE), await listProject()];
      if (raw === PAGE && project === PAGE) break;
      if (attempt >= 50) throw new Error(`a full page never showed up (raw ${raw}, project ${project})`);
      await sleep(200);
    }

    const measure = async (params: Record<string, unknown>) => {
      const raw = new Sample();
      const project = new Sample();
      const check = (rows: number) => {
        if (rows !== PAGE) throw new Error(`listed ${rows} rows, not ${PAGE}`);
      };
      await interleave(options.listIterations, options.batches, {
        raw: async (size) => {
          for (let i = 0; i < size; i++) check(await raw.time(() => stack.raw.list(PAGE)));
        },
        project: async (size) => {
          for (let i = 0; i < size; i++) check(await project.time(() => listProject(params)));
        },
      });
      return { raw, project };
    };
    const rows = [];
    for (const [label, params] of [
      ['full tasks', {}],
      ['historyLength 0, from the summary memo', { historyLength: 0 }],
    ] as const) {
      const { raw, project } = await measure(params);
      rows.push({
        path: `6 list ${PAGE}, ${label}`,
        metric: 'p50 latency',
        unit: 'ms',
        raw: raw.p(50),
        project: project.p(50),
        target: { kind: 'none' as const },
        note: `${options.listIterations} per side; p99 raw ${raw.p(99).toFixed(1)} ms, project ${project.p(99).toFixed(1)} ms`,
      });
    }
    return rows;
  },
};
