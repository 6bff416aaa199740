/**
 * A loaded project config on its worker and its gateway: what the `worker` and `gateway` commands
 * and the dev stack each start, from one place.
 */
import { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { GatewaySettings } from '../gateway/config.js';
import { startGateway, type RunningGateway } from '../gateway/server.js';
import type { TemporalSettings } from '../temporal/connection.js';
import { createAgentWorker } from '../worker/create-worker.js';
import type { WorkerDeployment } from '../worker/deployment.js';
import { modelSettingsFromEnv } from '../llm/model-settings.js';
import { logger } from '../logging.js';
import { reconcileSchedules } from '../schedules/schedules.js';
import type { LoadedConfig } from './load-config.js';
import type { Settings } from './settings.js';
import type { ReceiptRequest } from '../protocol/contract.js';

/**
 * The project's worker; once it is made (its agents bundled), the config's scheduled tasks become
 * Temporal's Schedules (added, changed, removed: src/schedules), so its runs find a worker.
 */
export async function createProjectWorker(
  config: LoadedConfig,
  connection: NativeConnection,
  settings: TemporalSettings,
  environment: Settings,
  options: { deployment?: WorkerDeployment; maxCachedWorkflows?: number } = {},
): Promise<Worker> {
  const worker = await createAgentWorker({
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    agents: config.agentsModule,
    activities: await config.loadActivities(),
    model: { ...modelSettingsFromEnv(environment), providers: await config.loadModelProviders() },
    settings: environment,
    ...(config.approvals && { approvals: config.approvals }),
    ...(config.remoteAgents && { remoteAgents: config.remoteAgents }),
    ...(options.deployment && { deployment: options.deployment }),
    ...(options.maxCachedWorkflows !== undefined && { maxCachedWorkflows: options.maxCachedWorkflows }),
  });
  // The worker signs the receipts its Schedules' tasks ask for when it has the key.
  const request = environment.A2A_RECEIPT_SIGNING_KEY ? { receipts: true as const } : {};
  await reconcileProjectSchedules(config, new Client({ connection, namespace: settings.namespace }), settings, request);
  return worker;
}

/**
 * A config with schedules needs them made: a failure stops the worker. One without may only have
 * some to remove (schedules dropped from it): a failure to look (say, a role that may not list
 * Schedules) is a warning, so a project that never had any is not stopped by it.
 */
async function reconcileProjectSchedules(
  config: LoadedConfig,
  client: Client,
  settings: TemporalSettings,
  request: ReceiptRequest,
) {
  const { taskQueue } = settings;
  try {
    const result = await reconcileSchedules(client, taskQueue, config.schedules, request);
    if (config.schedules.length > 0 || result.removed.length > 0) {
      logger.info({ ...result, taskQueue }, 'scheduled tasks in line with the config');
    }
  } catch (error) {
    if (config.schedules.length > 0) throw error;
    logger.warn({ err: error, taskQueue }, 'could not look for scheduled tasks removed from the config');
  }
}

/** The gateway for the project's agents; `gateway` (from the environment) wins over the config's default agent. */
export function startProjectGateway(
  config: LoadedConfig,
  client: Client,
  settings: TemporalSettings,
  gateway: GatewaySettings,
): Promise<RunningGateway> {
  return startGateway({
    client,
    agents: config.agents,
    ...(config.defaultAgent && { defaultAgent: config.defaultAgent }),
    ...gateway,
    taskQueue: settings.taskQueue,
  });
}
