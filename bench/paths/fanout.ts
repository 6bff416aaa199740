/**
 * Path 4: a status change reaching SSE subscribers. One waiting expense task, 1 / 100 / 1,000
 * SubscribeToTask streams on it (held by the subscriber process); another client replies "approve";
 * each stream's latency runs from sending the reply to that stream seeing working or completed.
 * Also, kept from the first streaming benchmark: how late a running task's status changes reach a
 * subscriber, against the workflow's own status timestamps. No raw comparison for either.
 */
import { message, replyAndReturn, rpc, waitingExpenseTask } from '../a2a.js';
import { epochNow, percentile, sleep, withTimeout } from '../measure.js';
import type { Row } from '../report.js';
import { subscribeToTask } from '../sse.js';
import type { BenchPath } from './types.js';

const ARRIVAL_TIMEOUT_MS = 30_000;
/** Samples to aim for per subscriber count (1 subscriber: up to --iterations rounds). */
const SAMPLES = 100;

export const statusFanout: BenchPath = {
  title: '4. status change -> SSE subscribers of one task (reply sent by another client)',
  async run({ stack, options, log }) {
    const url = stack.agentUrl('expense-approval');
    const rows: Row[] = [];
    for (const subscribers of options.fanout) {
      const rounds = Math.min(options.iterations, Math.max(options.fanoutRounds, Math.ceil(SAMPLES / subscribers)));
      const latencies: number[] = [];
      let missing = 0;
      for (let round = 0; round < rounds; round++) {
        const taskId = await waitingExpenseTask(url);
        const group = `fanout-${subscribers}-${round}`;
        try {
          await stack.subscribers.open(group, url, [taskId], subscribers, 60_000 + subscribers * 60);
          await sleep(100 + subscribers / 2); // every subscription open and idle
          const sentAt = epochNow();
          await replyAndReturn(url, taskId, 'approve');
          const collected = await stack.subscribers.collect(group, ARRIVAL_TIMEOUT_MS);
          latencies.push(...collected.arrivals.map((at) => at - sentAt));
          // A stream that never saw the change counts as the timeout (a lower bound).
          for (let i = 0; i < collected.missing; i++) latencies.push(ARRIVAL_TIMEOUT_MS);
          missing += collected.missing;
        } finally {
          await stack.subscribers.close(group);
        }
      }
      log(`  ${subscribers} subscriber(s): ${rounds} rounds, ${latencies.length} arrivals, ${missing} missing`);
      const path = `4 status->SSE, ${subscribers} sub${subscribers === 1 ? '' : 's'}`;
      const note = `${rounds} rounds x ${subscribers}; fastest stream ${Math.min(...latencies).toFixed(1)} ms, slowest ${Math.max(...latencies).toFixed(1)} ms${missing ? `; ${missing} streams never saw the change` : ''}`;
      rows.push(
        {
          path,
          metric: 'p50 latency',
          unit: 'ms',
          project: percentile(latencies, 50),
          target: { kind: 'at-most', value: 50 },
          note,
        },
        {
          path,
          metric: 'p99 latency',
          unit: 'ms',
          project: percentile(latencies, 99),
          target: { kind: 'at-most', value: 250 },
        },
      );
    }
    rows.push(await runningTaskLag(stack.agentUrl('long-report'), options.quick ? 10 : 30));
    return rows;
  },
};

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
