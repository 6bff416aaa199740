/**
 * Path 11: the inbox's first page (`GET /inbox/api/questions`, no authentication: every waiting
 * question) with `--inbox-waiting N` questions waiting. Expense-approval tasks are added until the
 * inbox's own visibility query counts N (tasks earlier paths left waiting count too). Raw: a
 * visibility page of 50 raw waiting workflows. The first request after the tasks were created is
 * reported apart: a gateway that just started reads every waiting question once.
 */
import { waitingForQuery } from '../../src/tasks/index.js';
import { waitingExpenseTask } from '../a2a.js';
import { interleave, pool, Sample, sleep } from '../measure.js';
import type { BenchPath } from './types.js';

const RAW_PAGE = 50;
const TARGET_MS = 100;

export const inboxFirstPage: BenchPath = {
  title: `11. the inbox's first page with --inbox-waiting N questions waiting (raw: a visibility page of ${RAW_PAGE})`,
  async run({ stack, options, log }) {
    const { default: agents } = await import('../../examples/agents/index.js');
    const query = waitingForQuery(agents.map((agent) => agent.name));
    const waitingNow = () => stack.raw.client.workflow.count(query).then(({ count }) => count);
    const url = stack.agentUrl('expense-approval');
    const missing = options.inboxWaiting - (await waitingNow());
    if (missing > 0) {
      log(`  creating ${missing} waiting expense tasks`);
      await pool(missing, options.concurrency, async () => void (await waitingExpenseTask(url)));
    }
    await pool(RAW_PAGE, options.concurrency, async () => void (await stack.raw.waiting()));
    // Visibility is eventually consistent: wait until the count holds still.
    for (let last = -1, now = await waitingNow(); now !== last; await sleep(500), last = now, now = await waitingNow());
    const waiting = await waitingNow();

    const page = async () => {
      const response = await fetch(`${stack.gatewayUrl}/inbox/api/questions`);
      if (!response.ok) throw new Error(`inbox page: HTTP ${response.status}`);
      return (await response.json()) as { questions: unknown[]; more: boolean };
    };
    const first = performance.now();
    const firstPage = await page();
    const firstMs = performance.now() - first;
    const raw = new Sample();
    const project = new Sample();
    await interleave(options.listIterations, options.batches, {
      raw: async (size) => {
        for (let i = 0; i < size; i++) await raw.time(() => stack.raw.list(RAW_PAGE));
      },
      project: async (size) => {
        for (let i = 0; i < size; i++) await project.time(page);
      },
    });
    return [
      {
        path: `11 inbox, ${waiting} waiting`,
        metric: 'first page: p50',
        unit: 'ms',
        raw: raw.p(50),
        project: project.p(50),
        target: { kind: 'at-most', value: TARGET_MS },
        note:
          `${options.listIterations} per side in ${options.batches} alternating batches; p95 raw ${raw.p(95).toFixed(1)} ms, project ${project.p(95).toFixed(1)} ms; ` +
          `the page held ${firstPage.questions.length} questions (more: ${firstPage.more}); the first request after the tasks were created took ${firstMs.toFixed(0)} ms`,
      },
    ];
  },
};
