/**
 * The worker: hosts the task workflow (every agent in src/agents) and the activities.
 * Configured by Temporal's standard environment variables (see src/temporal/connection.ts).
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import * as activities from './activities/index.js';
import { logger } from './logging.js';
import { routeTemporalLogs } from './temporal/worker-logs.js';
import { temporalSettings } from './temporal/connection.js';

/** The workflow bundle's entry: one dynamic workflow that runs any registered agent (.ts under tsx, .js when built). */
export const WORKFLOWS_ENTRY = fileURLToPath(
  new URL(`./agents/workflows${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

export async function createWorker(
  connection: NativeConnection,
  options: { namespace: string; taskQueue: string } & Partial<WorkerOptions>,
): Promise<Worker> {
  return Worker.create({
    connection,
    activities,
    workflowsPath: WORKFLOWS_ENTRY,
    ...options,
  });
}

async function main(): Promise<void> {
  routeTemporalLogs();
  const settings = temporalSettings();
  const connection = await NativeConnection.connect(settings.connection);
  const worker = await createWorker(connection, { namespace: settings.namespace, taskQueue: settings.taskQueue });
  const { address, namespace, taskQueue } = settings;
  logger.info({ address, namespace, taskQueue }, 'worker started');
  await worker.run();
  await connection.close();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    logger.error({ err: error }, 'worker failed');
    process.exit(1);
  });
}
