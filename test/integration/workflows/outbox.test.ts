/**
 * The outbox (src/workflows/outbox.ts) on a real worker: each lane sends its items one at a time, in
 * order; an item is tried once, its failure recorded (`failing`) before the retries, which a failure
 * marked non-retryable, a moot item or a one-attempt item never get.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect, inject, it } from 'vitest';
import type { outboxProbe, ProbeItem } from '../../fixtures/workflows/outbox-probe.js';
import { quietLogger } from '../../support/worker.js';

const WORKFLOWS = fileURLToPath(new URL('../../fixtures/workflows/outbox-probe.ts', import.meta.url));

/** Each item's answers, attempt by attempt (the last repeats): ok, down (retryable), refused (for good). */
const ANSWERS: Record<string, Array<'ok' | 'down' | 'refused'>> = {
  a1: ['down', 'ok'],
  a2: ['ok'],
  b1: ['refused'],
  c1: ['down', 'ok'],
  c2: ['down', 'ok'],
  d1: ['down', 'ok'],
};

const ITEMS: ProbeItem[] = [
  { id: 'a1', lane: 'a', attempts: 'once then retried' },
  { id: 'a2', lane: 'a', attempts: 'once then retried' },
  { id: 'b1', lane: 'b', attempts: 'once then retried' },
  { id: 'c1', lane: 'c', attempts: 'once' },
  { id: 'c2', lane: 'c', attempts: 'retried' },
  { id: 'd1', lane: 'd', attempts: 'once then retried', moot: true },
];

it('sends each lane in order, trying once, recording the failure, then retrying', async () => {
  const calls: string[] = [];
  const activities = {
    probeSend(id: string): Promise<string> {
      const attempt = calls.filter((call) => call === id).length;
      calls.push(id);
      const answers = ANSWERS[id]!;
      const answer = answers[Math.min(attempt, answers.length - 1)];
      if (answer === 'refused') throw ApplicationFailure.nonRetryable('refused', 'ProbeRefused');
      if (answer === 'down') throw new Error('down');
      return Promise.resolve(`${id} #${attempt + 1}`);
    },
  };
  const taskQueue = `outbox-${randomUUID()}`;
  const address = inject('temporalAddress');
  const workerConnection = await NativeConnection.connect({ address });
  const clientConnection = await Connection.connect({ address });
  let log: string[];
  try {
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: quietLogger }),
      activities,
    });
    const client = new Client({ connection: clientConnection });
    const workflowId = `outbox-${randomUUID()}`;
    log = await worker.runUntil(
      client.workflow.execute<typeof outboxProbe>('outboxProbe', { taskQueue, workflowId, args: [ITEMS] }),
    );
  } finally {
    await clientConnection.close();
    await workerConnection.close();
  }
  // Lanes run side by side: each one's lines, in order.
  const lane = (name: string) => log.filter((line) => / ([a-z])\d+:/.exec(line)?.[1] === name);
  expect(lane('a')).toEqual(['failing a1: down', 'sent a1: a1 #2', 'sent a2: a2 #1']);
  expect(lane('b')).toEqual(['given up b1: refused']);
  expect(lane('c')).toEqual(['given up c1: down', 'sent c2: c2 #2']);
  expect(lane('d')).toEqual(['failing d1: down', 'given up d1: down']);
  // One attempt for what is refused, moot or tried once; the retries go on in one activity.
  const attempts = (id: string) => calls.filter((call) => call === id).length;
  expect(['b1', 'c1', 'd1'].map(attempts)).toEqual([1, 1, 1]);
  expect(['a1', 'a2', 'c2'].map(attempts)).toEqual([2, 1, 2]);
});
