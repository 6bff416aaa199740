/**
 * A Temporal worker that runs a project's agents and activities on the caller's connection,
 * namespace and task queue; traced while tracing is on (src/telemetry/tracing.ts).
 */
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../protocol/contract.js';
import { tracingPlugins } from '../telemetry/tracing.js';
import { agentsPlugin, type AgentsPluginOptions } from './agents-plugin.js';
import { workerDeploymentOptions, type WorkerDeployment } from './deployment.js';

/**
 * A worker for a project's agents: the agents plugin's options, and any of Temporal's `WorkerOptions`
 * beside them (the plugin adds its activities and workflow bundle to yours).
 */
export interface AgentWorkerOptions extends AgentsPluginOptions, Partial<Omit<WorkerOptions, 'activities'>> {
  /** The connection to Temporal (`NativeConnection.connect(...)` of `@temporalio/worker`). */
  connection: NativeConnection;
  /** Default 'default'. */
  namespace?: string;
  /** Default 'a2a-temporal': the gateway must start tasks on the same queue. */
  taskQueue?: string;
  /** Worker Versioning: this worker is version `buildId` of deployment `name` (src/worker/deployment.ts). */
  deployment?: WorkerDeployment;
}

/**
 * Creates a Temporal worker that runs a project's agents and activities (call its `run()`); traced
 * while tracing is on.
 *
 * @example
 * import { NativeConnection } from '@temporalio/worker';
 * import { createAgentWorker } from 'a2a-temporal/worker';
 * import * as activities from './activities.js';
 *
 * const connection = await NativeConnection.connect({ address: 'localhost:7233' });
 * const worker = await createAgentWorker({
 *   connection,
 *   taskQueue: 'a2a-temporal',
 *   agents: new URL('./agents.ts', import.meta.url),
 *   activities,
 *   deployment: { name: 'shop-agents', buildId: process.env.GIT_SHA ?? 'dev' },
 * });
 * await worker.run();
 */
export function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { agents, activities, model, approvals, remoteAgents, settings, plugins, deployment, ...workerOptions } =
    options;
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
        ...(settings && { settings }),
      }),
    ],
  });
}
