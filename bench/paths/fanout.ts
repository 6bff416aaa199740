/**
 * Path 4: a status change reaching SSE subscribers. One waiting expense task, 1 / 100 / 1,000
 * SubscribeToTask streams on it (held by the subscriber process); another client replies "approve";
 * each stream's latency runs from sending the reply to that stream seeing working or completed.
 * The raw floor, interleaved round by round: the same streams on a raw waiting workflow, fanned out
 * by bench/raw-fanout.ts, and one executeUpdate that completes it.
 * Also, kept from the first streaming benchmark: how late a running task's status changes reach a
 * subscriber, against the workflow's own status timestamps (no raw comparison).
 */
import { message, replyAndReturn, rpc, waitingExpenseTask } from '../a2a.js';
import { epochNow, percentile, sleep, withTimeout } from '../measure.js';
import type { Row } from '../report.js';
import { subscribeToTask } from '../sse.js';
import type { Stack } from '../stack.js';
import type { BenchPath } from './types.js';

const ARRIVAL_TIMEOUT_MS = 30_000;
/** Samples to aim for per subscriber count (1 subscriber: up to --iterations rounds). */
const SAMPLES = 100;

export const statusFanout: BenchPath = {
  title: '4. status change -> SSE subscribers of one task (reply sent by another client; raw: bench/raw-fanout.ts)',
  async run({ stack, options, log }) {
    const url = stack.agentUrl('expense-approval');
    const rows: Row[] = [];
    for (const subscribers of options.fanout) {
      const rounds = Math.min(options.iterations, Math.max(options.fanoutRounds, Math.ceil(SAMPLES / subscribers)));
      const raw: Arrivals = { latencies: [], missing: 0, cpuMs: 0 };
      const project: Arrivals = { latencies: [], missing: 0, cpuMs: 0 };
      const sides = {
        raw: async (group: string) => {
          const workflowId = await stack.raw.waiting();
          await fanoutRound(stack, group, stack.rawFanout.url, workflowId, subscribers, raw, () =>
            stack.raw.resume(workflowId, 'approve'),
          );
        },
        project: async (group: string) => {
          const taskId = await waitingExpenseTask(url);
          await fanoutRound(stack, group, url, taskId, subscribers, project, () =>
            replyAndReturn(url, taskId, 'approve'),
          );
        },
      };
      for (let round = 0; round < rounds; round++) {
        // Alternate which side goes first, so neither always runs on the heels of the other.
        const order = round % 2 === 0 ? (['raw', 'project'] as const) : (['project', 'raw'] as const);
        for (const side of order) await sides[side](`fanout-${side}-${subscribers}-${round}`);
      }
      log(
        `  ${subscribers} subscriber(s): ${rounds} rounds per side, ${project.latencies.length} arrivals (${project.missing} missing), raw ${raw.latencies.length} (${raw.missing} missing)`,
      );
      const path = `4 status->SSE, ${subscribers} sub${subscribers === 1 ? '' : 's'}`;
      const spread = (side: Arrivals) =>
        `fastest stream ${Math.min(...side.latencies).toFixed(1)} ms, slowest ${Math.max(...side.latencies).toFixed(1)} ms, ` +
        `${((side.cpuMs * 1000) / (rounds * subscribers)).toFixed(0)} us of CPU per stream (replying client and server)${side.missing ? `; ${side.missing} streams never saw the change` : ''}`;
      rows.push(
        {
          path,
          metric: 'p50 latency',
          unit: 'ms',
          raw: percentile(raw.latencies, 50),
          project: percentile(project.latencies, 50),
          target: { kind: 'at-most', value: 50 },
          note: `${rounds} rounds x ${subscribers} per side; project: ${spread(project)}; raw: ${spread(raw)}`,
        },
        {
          path,
          metric: 'p99 latency',
          unit: 'ms',
          raw: percentile(raw.latencies, 99),
          project: percentile(project.latencies, 99),
          target: { kind: 'at-most', value: 250 },
        },
      );
    }
    rows.push(await runningTaskLag(stack.agentUrl('long-report'), options.quick ? 10 : 30));
    return rows;
  },
};

interface Arrivals {
  /** Per stream, ms from sending the reply to the stream seeing the change. */
  latencies: number[];
  missing: number;
  /** CPU of this process (the replying client, and the gateway or the raw fan-out server) from the reply until every stream saw the change. */
  cpuMs: number;
}

/** `subscribers` streams on one waiting task or workflow, then the reply; adds each stream's latency to `into`. */
async function fanoutRound(
  stack: Stack,
  group: string,
  url: string,
  taskId: string,
  subscribers: number,
  into: Arrivals,
  reply: () => Promise<unknown>,
): Promise<void> {
  try {
    await stack.subscribers.open(group, url, [taskId], subscribers, 60_000 + subscribers * 60);
    await sleep(100 + subscribers / 2); // every subscription open and idle
    const sentAt = epochNow();
    const cpuBefore = process.cpuUsage();
    await reply();
    const collected = await stack.subscribers.collect(group, ARRIVAL_TIMEOUT_MS);
    const cpu = process.cpuUsage(cpuBefore);
    into.cpuMs += (cpu.user + cpu.system) / 1000;
    into.latencies.push(...collected.arrivals.map((at) => at - sentAt));
    // A stream that never saw the change counts as the timeout (a lower bound).
    for (let i = 0; i < collected.missing; i++) into.latencies.push(ARRIVAL_TIMEOUT_MS);
    into.missing += collected.missing;
  } finally {
    await stack.subscribers.close(group);
  }
}

/** A long-report task's status changes, each timed from its workflow timestamp to this client. */
async function runningTaskLag(url: string, sections: number): Promise<Row> {
  const request = message('latency');
  request.message.parts = [{ text: 'latency' }, { data: { sections, sectionMs: 100 } } as any];
  const started = await rpc(url, 'SendMessage', { ...request, configuration: { returnImmediately: true } });
  const lags: number[] = [];
  const abort = new AbortController();
  try {
    await withTimeout(
      'long-report task',
      60_000 + sections * 1000,
      new Promise<void>((resolve, reject) => {
        subscribeToTask(
          url,
          started.task.id,
          (event) => {
            const status = event?.statusUpdate?.status;
            if (!status) return;
            lags.push(Date.now() - Date.parse(status.timestamp));
            if (status.state === 'TASK_STATE_COMPLETED') resolve();
          },
          abort.signal,
        ).catch(reject);
      }),
    );
  } finally {
    abort.abort();
  }
  return {
    path: '4b running task status->SSE',
    metric: 'p50 lag',
    unit: 'ms',
    project: percentile(lags, 50),
    target: { kind: 'at-most', value: 50 },
    note: `${lags.length} status changes of a long-report task (${sections} sections of 100 ms), from the workflow's status timestamp (ms); p90 ${percentile(lags, 90)} ms, max ${Math.max(...lags)} ms`,
  };
}
