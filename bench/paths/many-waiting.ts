/**
 * Path 10 (`--many-waiting N`, off by default, not in CI): N approvals waiting at once, as in a
 * company where they wait for days. Workers of their own, each with a workflow cache of
 * `--many-waiting-cache`, on task queues of their own, and a gateway on the project's queue; the
 * dev server keeps its database in a file. Created interleaved, N per side at --concurrency in
 * flight: N expense-approval tasks at input-required, N raw workflows waiting in `condition`.
 * Reports: the workers' RSS as the tasks pile up (bounded by the cache, not by N), the database's
 * growth per task, ListTasks and the inbox's first page with N waiting (raw: a visibility page of
 * 50), then a burst of 1,000 answers (cold: the oldest tasks, long out of the cache) at 50 in flight.
 */
import { Client, Connection } from '@temporalio/client';
import { existsSync, statSync } from 'node:fs';
import { INBOX_PAGE_ROWS } from '../../src/gateway/inbox/live-list.js';
import { waitingForQuery } from '../../src/tasks/index.js';
import { replyBlocking, rpc, waitingExpenseTask } from '../a2a.js';
import { interleave, pool, Sample, sleep } from '../measure.js';
import { rssOf, startColdProjectWorker, startRawWorker, stopChild } from '../processes.js';
import { RawFloor } from '../raw.js';
import type { Row } from '../report.js';
import type { BenchPath } from './types.js';

const MB = 1024 * 1024;
const PAGE = 50;
const BURST = 1_000;
const BURST_IN_FLIGHT = 50;
const PROJECT_QUEUE = 'bench-a2a-many';
const RAW_QUEUE = 'bench-raw-many';

/** The database file and its write-ahead log, in bytes. */
function dbBytes(file: string | undefined): number {
  if (!file) return NaN;
  return [file, `${file}-wal`].reduce((sum, path) => sum + (existsSync(path) ? statSync(path).size : 0), 0);
}

export const manyWaiting: BenchPath = {
  title: '10. many waiting approvals (--many-waiting N): memory, disk, lists, a burst of answers',
  async run({ stack, options, log }) {
    const count = options.manyWaiting;
    if (count === 0) return [];
    const cache = options.manyWaitingCache;
    const { startGateway } = await import('../../src/gateway/server.js');
    const { default: agents } = await import('../../examples/agents/index.js');
    const stops: (() => Promise<void>)[] = [];
    try {
      log(`  starting workers with a workflow cache of ${cache}, and a gateway on their task queue`);
      const [projectWorker, rawWorker] = await Promise.all([
        startColdProjectWorker(stack.temporalAddress, PROJECT_QUEUE, cache),
        startRawWorker(stack.temporalAddress, RAW_QUEUE, cache),
      ]);
      stops.push(
        () => stopChild(projectWorker),
        () => stopChild(rawWorker),
      );
      const raw = await RawFloor.connect(stack.temporalAddress, RAW_QUEUE);
      stops.push(() => raw.close());
      const connection = await Connection.connect({ address: stack.temporalAddress });
      stops.push(() => connection.close());
      const gateway = await startGateway({
        client: new Client({ connection }),
        agents,
        grpcPort: false,
        taskQueue: PROJECT_QUEUE,
      });
      stops.push(() => gateway.close());
      const url = `${gateway.url}/agents/expense-approval`;
      await waitingExpenseTask(url);
      await raw.waiting();

      const rss = () => ({ raw: rssOf(rawWorker.pid!), project: rssOf(projectWorker.pid!) });
      const before = rss();
      const serverBefore = stack.temporalPid ? rssOf(stack.temporalPid) : NaN;
      const disk = { raw: 0, project: 0 };
      const created = { raw: new Sample(), project: new Sample() };
      const rawIds: string[] = [];
      const taskIds: string[] = [];
      const checkpoints: string[] = [];
      let made = 0;
      const side = (name: 'raw' | 'project', make: () => Promise<string>, into: string[]) => async (size: number) => {
        const dbBefore = dbBytes(stack.dbFile);
        await created[name].batch(size, () =>
          pool(size, options.concurrency, async () => void into.push(await make())),
        );
        disk[name] += dbBytes(stack.dbFile) - dbBefore;
        made += size;
        const now = rss();
        checkpoints.push(
          `${Math.min(rawIds.length, taskIds.length)}: raw ${(now.raw / MB).toFixed(0)} / project ${(now.project / MB).toFixed(0)} MB`,
        );
        log(
          `  ${made} of ${2 * count} waiting tasks/workflows created; worker RSS raw ${(now.raw / MB).toFixed(0)} MB, project ${(now.project / MB).toFixed(0)} MB`,
        );
      };
      await interleave(count, Math.max(options.batches, Math.ceil(count / 1_000)), {
        raw: side('raw', () => raw.waiting(), rawIds),
        project: side('project', () => waitingExpenseTask(url), taskIds),
      });
      await sleep(2_000);
      const after = rss();
      const serverAfter = stack.temporalPid ? rssOf(stack.temporalPid) : NaN;

      // Lists with N waiting: ListTasks (rows from the summary memo, and full tasks), the inbox's first page.
      const lists = {
        raw: new Sample(),
        memo: new Sample(),
        full: new Sample(),
        inbox: new Sample(),
        inboxListing: new Sample(),
      };
      // The waiting questions' visibility query, one page of the inbox's rows, straight to Temporal: what
      // each page cost when the inbox listed them for every page (before its index, waiting-index.ts).
      const inboxListing = () =>
        connection.workflowService.listWorkflowExecutions({
          namespace: 'default',
          query: waitingForQuery(agents.map((agent) => agent.name)),
          pageSize: INBOX_PAGE_ROWS,
        });
      const inboxPage = async () => {
        const response = await fetch(`${gateway.url}/inbox/api/questions`);
        if (!response.ok) throw new Error(`inbox page: HTTP ${response.status}`);
        await response.json();
      };
      await interleave(options.listIterations, options.batches, {
        raw: async (size) => {
          for (let i = 0; i < size; i++) await lists.raw.time(() => raw.list(PAGE));
        },
        project: async (size) => {
          for (let i = 0; i < size; i++)
            await lists.memo.time(() => rpc(url, 'ListTasks', { pageSize: PAGE, historyLength: 0 }));
        },
        full: async (size) => {
          for (let i = 0; i < size; i++) await lists.full.time(() => rpc(url, 'ListTasks', { pageSize: PAGE }));
        },
        inbox: async (size) => {
          for (let i = 0; i < size; i++) await lists.inbox.time(inboxPage);
        },
        inboxListing: async (size) => {
          for (let i = 0; i < size; i++) await lists.inboxListing.time(inboxListing);
        },
      });

      // A burst of answers to the oldest tasks (long out of the cache), alternating halves.
      const burst = Math.min(BURST, count);
      const answered = { raw: new Sample(), project: new Sample() };
      let rawNext = 0;
      let projectNext = 0;
      await interleave(burst, 2, {
        raw: (size) =>
          answered.raw.batch(size, () =>
            pool(size, BURST_IN_FLIGHT, async () => {
              const id = rawIds[rawNext++]!;
              await answered.raw.time(() => raw.resume(id, 'approve'));
            }),
          ),
        project: (size) =>
          answered.project.batch(size, () =>
            pool(size, BURST_IN_FLIGHT, async () => {
              const id = taskIds[projectNext++]!;
              await answered.project.time(() => replyBlocking(url, id, 'approve'));
            }),
          ),
      });

      const path = `10 ${count} waiting`;
      const rows: Row[] = [
        {
          path,
          metric: `worker RSS after (cache ${cache})`,
          unit: 'MB',
          raw: after.raw / MB,
          project: after.project / MB,
          target: { kind: 'none' },
          note: `before: raw ${(before.raw / MB).toFixed(0)} MB, project ${(before.project / MB).toFixed(0)} MB; as they piled up (per side): ${checkpoints.join('; ')}; created at ${options.concurrency} in flight: raw ${created.raw.throughput.toFixed(0)}/s, project ${created.project.throughput.toFixed(0)}/s; dev server RSS ${(serverBefore / MB).toFixed(0)} -> ${(serverAfter / MB).toFixed(0)} MB (both sides)`,
        },
        {
          path,
          metric: 'dev server database per waiting task',
          unit: 'KB',
          raw: disk.raw / 1024 / count,
          project: disk.project / 1024 / count,
          target: { kind: 'none' },
          note: `SQLite file and its write-ahead log, growth around each side's batches; ${(dbBytes(stack.dbFile) / MB).toFixed(0)} MB in all at the end`,
        },
        {
          path,
          metric: `ListTasks page of ${PAGE}, historyLength 0: p50`,
          unit: 'ms',
          raw: lists.raw.p(50),
          project: lists.memo.p(50),
          target: { kind: 'none' },
          note: `raw: a visibility page of ${PAGE}; ${options.listIterations} per side; p99 raw ${lists.raw.p(99).toFixed(1)}, project ${lists.memo.p(99).toFixed(1)} ms; full tasks: p50 ${lists.full.p(50).toFixed(1)} ms, p99 ${lists.full.p(99).toFixed(1)} ms`,
        },
        {
          path,
          metric: 'inbox first page (questions): p50',
          unit: 'ms',
          raw: lists.raw.p(50),
          project: lists.inbox.p(50),
          target: { kind: 'none' },
          note: `GET /inbox/api/questions (up to ${INBOX_PAGE_ROWS} rows); p99 ${lists.inbox.p(99).toFixed(1)} ms; raw: a visibility page of ${PAGE}`,
        },
        {
          path,
          metric: `the same page against one visibility listing of ${INBOX_PAGE_ROWS} waiting questions: p50`,
          unit: 'ms',
          raw: lists.inboxListing.p(50),
          project: lists.inbox.p(50),
          target: { kind: 'none' },
          note: `raw: the waiting questions' query (up to ${INBOX_PAGE_ROWS} rows) straight to Temporal, what every page cost before the gateway kept its index of them`,
        },
        {
          path,
          metric: `burst of ${burst} answers at ${BURST_IN_FLIGHT} in flight: throughput`,
          unit: '/s',
          raw: answered.raw.throughput,
          project: answered.project.throughput,
          target: { kind: 'none' },
          note: `the oldest tasks (out of the cache), blocking replies until completed; p50 raw ${answered.raw.p(50).toFixed(0)} ms, project ${answered.project.p(50).toFixed(0)} ms`,
        },
        {
          path,
          metric: `the same burst: p99`,
          unit: 'ms',
          raw: answered.raw.p(99),
          project: answered.project.p(99),
          target: { kind: 'none' },
        },
      ];
      return rows;
    } finally {
      for (const stop of stops.reverse())
        await stop().catch((error: unknown) => console.error(`stopping: ${String(error)}`));
    }
  },
};
