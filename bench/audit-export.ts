/**
 * The audit export's figure (optional, outside the suite): N expense tasks answered, their decisions
 * signed, then `exportAudit` over all of them, timed (its collections included), with the live heap's
 * peak while it ran. The export holds a page at a time, so the peak should not grow with N.
 *   node --expose-gc --import tsx bench/audit-export.ts 1000
 */
import './log-env.js';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { exportJWK, generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as activities from '../examples/activities/index.js';
import { exportAudit } from '../src/audit/audit-export.js';
import { TaskWorkflows } from '../src/tasks/index.js';
import { startDevServer } from '../src/temporal/dev-server.js';
import { createAgentWorker } from '../src/worker/create-worker.js';
import { pool } from './measure.js';

const TASKS = Number(process.argv[2] ?? 200);
const TASK_QUEUE = 'bench-audit';
const LIVE_SAMPLE_LINES = 400;
const { privateKey } = await generateKeyPair('ES256', { extractable: true });
process.env.A2A_RECEIPT_SIGNING_KEY = JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'bench', alg: 'ES256' });

const server = await startDevServer();
const native = await NativeConnection.connect({ address: server.address });
const worker = await createAgentWorker({
  connection: native,
  taskQueue: TASK_QUEUE,
  agents: fileURLToPath(new URL('../examples/agents/index.ts', import.meta.url)),
  activities,
});
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const since = new Date();
const signal = new AbortController().signal;
try {
  await worker.runUntil(async () => {
    // As a gateway with the receipt key starts them: asking for receipts, which the worker signs.
    const workflows = new TaskWorkflows(client, { agent: 'expense-approval', taskQueue: TASK_QUEUE, receipts: true });
    // As the gateway sends them: parts and a message ID (the Update ID derives from both).
    const message = (text: string) => ({ messageId: randomUUID(), parts: [{ text }], untilSettled: true });
    await pool(TASKS, 8, async () => {
      const request = message('Please approve an expense of 120 USD for a team lunch');
      const { taskId } = await workflows.start({ ...request, channel: 'a2a' });
      await workflows.followUp(taskId, { ...message('approve'), responder: 'alice', channel: 'inbox' }, signal);
    });
  });
  // Visibility lags a little: the export is measured once it lists every task.
  while ((await client.workflow.count(`WorkflowType = 'expense-approval'`)).count < TASKS) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // Live heap: sampled after a full collection every LIVE_SAMPLE_LINES lines (garbage would hide any growth).
  globalThis.gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let bytes = 0;
  let written = 0;
  const began = performance.now();
  const { tasks, lines } = await exportAudit(client, { since, until: new Date() }, async (line) => {
    bytes += line.length + 1;
    if (++written % LIVE_SAMPLE_LINES === 0 && globalThis.gc) {
      globalThis.gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  });
  const ms = performance.now() - began;
  console.log(
    `audit export: ${tasks} tasks, ${lines} records, ${(bytes / 1024).toFixed(0)} KiB in ${(ms / 1000).toFixed(2)} s ` +
      `(${((tasks / ms) * 1000).toFixed(0)} tasks/s); live heap peak +${((peak - base) / 1024 / 1024).toFixed(1)} MiB`,
  );
} finally {
  await connection.close();
  await native.close();
  await server.stop();
}
