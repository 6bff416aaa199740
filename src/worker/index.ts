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
 *
 * @module a2a-temporal/worker
 */
export { agentsPlugin, type AgentsPluginOptions, type ApprovalSettings } from './agents-plugin.js';
export { bundleAgents } from './agents-bundle.js';
export { createAgentWorker, type AgentWorkerOptions } from './create-worker.js';
export type { WorkerDeployment } from './deployment.js';
export type { ModelProvider, ModelSettings } from '../llm/model-settings.js';
export type { ApprovalDefaults } from '../workflows/approver-notifications.js';
export type { ApproverChannelOptions } from '../package-activities/approver-notices.js';
export type { ApproverDelegation, ApproverDirectory, ApproverEntry } from '../channels/directory.js';
export type { AnswerLinks, AnswerLinkSettings } from '../channels/answer-links.js';
export type { EmailSender } from '../channels/email.js';
export type { ApproverNotice, NoteKind, NoticeKind, PostedMessage } from '../protocol/approvals.js';
export type { SlackSettings } from '../channels/slack.js';
export type { PushUrlPolicy } from '../push/url-policy.js';
export {
  startTracing,
  stopTracing,
  tracingPlugins,
  type TracingOptions,
  type TracingSettings,
} from '../telemetry/tracing.js';
export { readSettings, type Settings } from '../config/settings.js';
