/**
 * Child process: the worker of the raw floor (bench/raw-workflows.ts), bundled with
 * `bundleWorkflowCode` and polling its own task queue. No project code. Tells the parent "ready"
 * over IPC; stops on SIGINT/SIGTERM (the SDK's default shutdown signals).
 *   node --import tsx bench/raw-worker.ts   (env TEMPORAL_ADDRESS, RAW_TASK_QUEUE; RAW_MAX_CACHED_WORKFLOWS
 *   for a small workflow cache, path 8)
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import * as activities from './raw-activities.js';

const address = process.env.TEMPORAL_ADDRESS;
const taskQueue = process.env.RAW_TASK_QUEUE;
if (!address || !taskQueue) throw new Error('TEMPORAL_ADDRESS and RAW_TASK_QUEUE are required');

Runtime.install({ logger: new DefaultLogger('WARN') });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./raw-workflows.ts', import.meta.url)),
  logger: Runtime.instance().logger,
});
const connection = await NativeConnection.connect({ address });
const maxCached = process.env.RAW_MAX_CACHED_WORKFLOWS;
const worker = await Worker.create({
  connection,
  namespace: 'default',
  taskQueue,
  workflowBundle,
  activities,
  ...(maxCached && { maxCachedWorkflows: Number(maxCached) }),
});
const running = worker.run();
process.send?.('ready');
// The parent going away (even killed) must not leave this worker polling.
process.on('disconnect', () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
});
await running;
await connection.close();
if (process.connected) process.disconnect();
