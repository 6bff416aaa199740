/**
 * A Temporal worker that runs a project's agents and activities on the caller's connection,
 * namespace and task queue; traced while tracing is on (src/telemetry/tracing.ts).
 */
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../protocol/contract.js';
import { tracingPlugins } from '../telemetry/tracing.js';
import { agentsPlugin, type AgentsPluginOptions } from './agents-plugin.js';
import { workerDeploymentOptions, type WorkerDeployment } from './deployment.js';

export interface AgentWorkerOptions extends AgentsPluginOptions, Partial<Omit<WorkerOptions, 'activities'>> {
  connection: NativeConnection;
  /** Default 'default'. */
  namespace?: string;
  /** Default 'a2a-temporal': the gateway must start tasks on the same queue. */
  taskQueue?: string;
  /** Worker Versioning: this worker is version `buildId` of deployment `name` (src/worker/deployment.ts). */
  deployment?: WorkerDeployment;
}

export function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { agents, activities, model, approvals, remoteAgents, plugins, deployment, ...workerOptions } = options;
  return Worker.create({
    namespace: 'default',
    taskQueue: DEFAULT_TASK_QUEUE,
    ...(deployment && { workerDeploymentOptions: workerDeploymentOptions(deployment) }),
    ...workerOptions,
    plugins: [
      ...tracingPlugins(),
      ...(plugins ?? []),
      agentsPlugin({
        agents,
        ...(activities && { activities }),
        ...(model && { model }),
        ...(approvals && { approvals }),
        ...(remoteAgents && { remoteAgents }),
      }),
    ],
  });
}
