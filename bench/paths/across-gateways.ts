/**
 * Path 9: an answer sent through one gateway reaching a stream held by another. A second gateway
 * process serves the same agents; per round, a waiting expense task, one SubscribeToTask stream on
 * it through the second gateway (idle: its feed watches the task without a long-poll of its own),
 * then "approve" through the bench's gateway; the latency runs from sending the reply to the stream
 * seeing working or completed. The second gateway hears of it through the gateways' change bus
 * (src/tasks/change-bus.ts), else its visibility list every 2 s. Interleaved round
 * by round: the same stream held by the replying gateway itself, and the raw floor of path 4 (one
 * stream on a raw waiting workflow, which bench/raw-fanout.ts watches with a history long-poll).
 */
import { replyAndReturn, waitingExpenseTask } from '../a2a.js';
import { epochNow, percentile, sleep } from '../measure.js';
import { startGatewayProcess, stopChild } from '../processes.js';
import type { Stack } from '../stack.js';
import type { BenchPath } from './types.js';

const ARRIVAL_TIMEOUT_MS = 30_000;
/** After the stream opened: its feed has left its first read and watches the waiting task. */
const SETTLE_MS = 300;

export const acrossGateways: BenchPath = {
  title: '9. across gateways: an answer through one gateway -> a stream held by another (raw: path 4 floor)',
  async run({ stack, options, log }) {
    const { freePort } = await import('../../src/temporal/dev-server.js');
    const second = await startGatewayProcess(stack.temporalAddress, stack.taskQueue, await freePort());
    try {
      const url = stack.agentUrl('expense-approval');
      const otherUrl = `${second.url}/agents/expense-approval`;
      const across: number[] = [];
      const same: number[] = [];
      const raw: number[] = [];
      const round = async (group: string, streamUrl: string, into: number[] | undefined) => {
        const taskId = await waitingExpenseTask(url);
        into?.push(await arrival(stack, group, streamUrl, taskId, () => replyAndReturn(url, taskId, 'approve')));
      };
      const rawRound = async (group: string) => {
        const workflowId = await stack.raw.waiting();
        raw.push(
          await arrival(stack, group, stack.rawFanout.url, workflowId, () => stack.raw.resume(workflowId, 'approve')),
        );
      };
      // Untimed: the second gateway's first watcher starts its bus listener.
      await round('across-warm-up', otherUrl, undefined);
      const rounds = Math.max(3, Math.min(options.iterations, 50));
      for (let i = 0; i < rounds; i++) {
        const sides = [
          () => round(`across-${i}`, otherUrl, across),
          () => round(`same-${i}`, url, same),
          () => rawRound(`across-raw-${i}`),
        ];
        for (let turn = 0; turn < sides.length; turn++) await sides[(i + turn) % sides.length]!();
      }
      log(`  ${rounds} rounds per side`);
      const missing = (latencies: number[]) => latencies.filter((ms) => ms >= ARRIVAL_TIMEOUT_MS).length;
      return [
        {
          path: '9 across gateways',
          metric: 'p50 latency, answer -> stream on another gateway',
          unit: 'ms',
          raw: percentile(raw, 50),
          project: percentile(across, 50),
          target: { kind: 'at-most', value: 250 },
          note:
            `${rounds} rounds per side, one stream each; p90 across ${percentile(across, 90).toFixed(0)} ms, max ${Math.max(...across).toFixed(0)} ms` +
            `${missing(across) ? ` (${missing(across)} never arrived)` : ''}; the same stream on the replying gateway: p50 ${percentile(same, 50).toFixed(1)} ms, p90 ${percentile(same, 90).toFixed(1)} ms; ` +
            `raw: one stream on a raw waiting workflow (history long-poll), p90 ${percentile(raw, 90).toFixed(1)} ms`,
        },
      ];
    } finally {
      await stopChild(second.child);
    }
  },
};

/** One stream on `taskId` through `streamUrl`, idle, then `reply`: ms from the reply to the stream seeing the change. */
async function arrival(
  stack: Stack,
  group: string,
  streamUrl: string,
  taskId: string,
  reply: () => Promise<unknown>,
): Promise<number> {
  try {
    await stack.subscribers.open(group, streamUrl, [taskId], 1, 60_000);
    await sleep(SETTLE_MS);
    const sentAt = epochNow();
    await reply();
    const collected = await stack.subscribers.collect(group, ARRIVAL_TIMEOUT_MS);
    return collected.missing > 0 ? ARRIVAL_TIMEOUT_MS : collected.arrivals[0]! - sentAt;
  } finally {
    await stack.subscribers.close(group);
  }
}
