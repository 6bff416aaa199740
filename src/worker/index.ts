/**
 * `a2a-temporal/worker`: run a project's agents on a Temporal worker (Node only).
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
 *   agents: new URL('./agents.ts', import.meta.url), // default export: your agents
 *   activities,
 * });
 * await worker.run();
 *
 * Or add `agentsPlugin({ agents, activities })` to the `plugins` of a `Worker.create` of your own.
 * `startTracing({ serviceName })` first traces the worker as the CLI does (docs/observability.md);
 * a `Worker.create` of your own then takes `tracingPlugins()` before `agentsPlugin`.
 */
export { agentsPlugin, bundleAgents, type AgentsPluginOptions, type ApprovalSettings } from './agents-plugin.js';
export { createAgentWorker, type AgentWorkerOptions } from './create-worker.js';
export type { WorkerDeployment } from './deployment.js';
export type { ModelSettings } from '../llm/model-settings.js';
export { startTracing, stopTracing, tracingPlugins, type TracingOptions } from '../telemetry/tracing.js';
