/**
 * A loaded project config on its worker and its gateway: what the `worker` and `gateway` commands
 * and the dev stack each start, from one place.
 */
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { GatewaySettings } from '../gateway/config.js';
import { startGateway, type RunningGateway } from '../gateway/server.js';
import type { TemporalSettings } from '../temporal/connection.js';
import { createAgentWorker } from '../worker/create-worker.js';
import type { WorkerDeployment } from '../worker/deployment.js';
import { modelSettingsFromEnv } from '../llm/model-settings.js';
import type { LoadedConfig } from './load-config.js';

export async function createProjectWorker(
  config: LoadedConfig,
  connection: NativeConnection,
  settings: TemporalSettings,
  options: { deployment?: WorkerDeployment; maxCachedWorkflows?: number } = {},
): Promise<Worker> {
  return createAgentWorker({
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    agents: config.agentsModule,
    activities: await config.loadActivities(),
    model: { ...modelSettingsFromEnv(), providers: await config.loadModelProviders() },
    ...(config.approvals && { approvals: config.approvals }),
    ...(config.remoteAgents && { remoteAgents: config.remoteAgents }),
    ...(options.deployment && { deployment: options.deployment }),
    ...(options.maxCachedWorkflows !== undefined && { maxCachedWorkflows: options.maxCachedWorkflows }),
  });
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
