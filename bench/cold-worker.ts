/**
 * Child process: the project's worker for the example agents, as `a2a-temporal worker` runs it but
 * with a workflow cache of A2A_MAX_CACHED_WORKFLOWS (path 8: a reply to a task whose workflow left
 * the cache, which the worker replays from its history first). Tells the parent "ready" over IPC;
 * stops on SIGINT/SIGTERM (the SDK's default shutdown signals) or when the parent goes away.
 *   node --import tsx bench/cold-worker.ts   (env TEMPORAL_ADDRESS, A2A_TASK_QUEUE, A2A_MAX_CACHED_WORKFLOWS,
 *   A2A_MODEL_BASE_URL and A2A_MODEL for the LLM agent)
 */
import { NativeConnection } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/load-config.js';
import { createProjectWorker } from '../src/config/project.js';
import { readSettings } from '../src/config/settings.js';
import { temporalSettings } from '../src/temporal/connection.js';
import { installTemporalRuntime } from '../src/temporal/runtime.js';

const maxCachedWorkflows = Number(process.env.A2A_MAX_CACHED_WORKFLOWS);
if (!Number.isInteger(maxCachedWorkflows)) throw new Error('A2A_MAX_CACHED_WORKFLOWS is required');

installTemporalRuntime();
const config = await loadConfig(fileURLToPath(new URL('../examples/a2a-temporal.config.ts', import.meta.url)));
const environment = readSettings(process.env);
const settings = temporalSettings(environment);
const connection = await NativeConnection.connect(settings.connection);
const worker = await createProjectWorker(config, connection, settings, environment, { maxCachedWorkflows });
const running = worker.run();
process.send?.('ready');
process.on('disconnect', () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
});
await running;
await connection.close();
if (process.connected) process.disconnect();
