/**
 * A Temporal worker plugin that runs a project's agents: it points the worker's workflow bundle at
 * this package's task workflow with the project's agents module inside, and registers the
 * project's activities. `a2a-temporal` imports in agent code resolve to this very copy of the
 * package, so agent code and the task workflow share one `AgentFailure` and one agent API. The
 * bundle also counts tasks started and settled on the worker's metrics (src/workflows/metrics-interceptors.ts),
 * and writes the memo and search attribute upserts of each activation as one of each
 * (src/workflows/coalesced-upserts.ts). As the worker starts, it unblocks its queue's tasks that
 * earlier code could not continue (src/worker/unblock-tasks.ts).
 */
import type { ReplayWorkerOptions, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ApproverChannelOptions } from '../package-activities/approver-notices.js';
import { createPackageActivities } from '../package-activities/index.js';
import type { ApprovalDefaults } from '../workflows/approver-notifications.js';
import { agentsBundleSettings } from './agents-bundle.js';
import { reportRetries } from './retry-reports.js';
import { unblockOnStart } from './unblock-tasks.js';
import { reportDivergences } from './divergence-reports.js';
import { checkToolActivities } from './tool-activities-check.js';
import { UNKNOWN_ACTIVITY } from '../protocol/errors.js';
import type { ModelSettings } from '../llm/model-settings.js';
import { readSettings, type Settings } from '../config/settings.js';
import type { RemoteAgentConfig } from '../protocol/delegation.js';

/** What the agents plugin runs: the project's agents and activities, and the settings of the package's own activities. */
export interface AgentsPluginOptions {
  /** Path or file URL of the agents module (its default export: the agents). */
  agents: string | URL;
  /** The activities the agents call, e.g. `import * as activities from './activities.js'`. */
  activities?: object;
  /** The OpenAI-compatible endpoint of LLM agents. Default: A2A_MODEL_BASE_URL, A2A_MODEL_API_KEY, A2A_MODEL. */
  model?: ModelSettings;
  /** Notifying approvers: the directory and channels, and the defaults questions take (the config's `approvals`). */
  approvals?: ApprovalSettings;
  /** The remote A2A agents that `ctx.callAgent` may name (the config's `remoteAgents`). */
  remoteAgents?: Record<string, RemoteAgentConfig>;
  /**
   * The worker's environment, `readSettings()`: what the options above leave unsaid (the model, the
   * approver channels, push webhooks' hosts and signing key, the public URL). Default: every
   * setting's default; the plugin reads no environment itself.
   */
  settings?: Settings;
}

/** Notifying approvers: how the worker reaches them, and the defaults of questions (the config's `approvals`). */
export interface ApprovalSettings extends ApproverChannelOptions, ApprovalDefaults {}

/**
 * A Temporal worker plugin that runs a project's agents: it bundles the agents module as the task
 * workflow, registers the project's activities and the package's own (model and tool calls, MCP,
 * push deliveries, remote agents, approver notices), and checks at start that every tool's activity
 * is registered. For a `Worker.create` of your own; {@link createAgentWorker} uses it.
 *
 * @example
 * import { Worker } from '@temporalio/worker';
 * import { agentsPlugin, tracingPlugins } from 'a2a-temporal/worker';
 * import * as activities from './activities.js';
 *
 * const worker = await Worker.create({
 *   connection,
 *   taskQueue: 'a2a-temporal',
 *   plugins: [...tracingPlugins(), agentsPlugin({ agents: new URL('./agents.ts', import.meta.url), activities })],
 * });
 */
export function agentsPlugin(options: AgentsPluginOptions): WorkerPlugin {
  const bundled = agentsBundleSettings(options.agents, options.approvals);
  // The package's own activities; read at start, closed when the worker stops (src/package-activities).
  const packaged = createPackageActivities({
    projectActivities: options.activities,
    model: options.model,
    approvals: options.approvals,
    remoteAgents: options.remoteAgents,
    settings: options.settings ?? readSettings({}),
  });
  return {
    name: 'a2a-temporal.agents',
    async configureWorker(given: WorkerOptions): Promise<WorkerOptions> {
      await checkToolActivities(options.agents, options.activities ?? {});
      const interceptors = given.interceptors ?? {};
      // A task says when its agent's activity is being retried (retry-reports.ts).
      const worker: WorkerOptions = {
        ...given,
        interceptors: { ...interceptors, activity: [...(interceptors.activity ?? []), reportRetries] },
      };
      return bundled({
        ...worker,
        activities: {
          // An agent calling an activity nobody registered fails at once, saying so (below).
          default: unknownActivity,
          ...packaged.activities,
          ...(options.activities as WorkerOptions['activities']),
          ...worker.activities,
        },
      });
    },
    async runWorker(worker, next) {
      // Before it polls, so that this worker is not running a task's workflow task while it is reset.
      await unblockOnStart(worker);
      // A task this worker's code cannot continue is said in words: the log's alert and the task's blocked marker.
      reportDivergences(worker, {
        agentsModule: typeof options.agents === 'string' ? options.agents : fileURLToPath(options.agents),
        agents: [],
        // Bundled as this worker is: the replay's code is this worker's.
        ...(options.approvals && { approvals: options.approvals }),
      });
      try {
        await next(worker);
      } finally {
        await packaged.close();
      }
    },
    configureReplayWorker: (worker: ReplayWorkerOptions): ReplayWorkerOptions => bundled(worker),
  };
}

/**
 * Temporal runs the `default` activity for activity types the worker does not know. Without it such a
 * call retries for ever and the task stays `working`; this ends it: the agent fails, naming the activity.
 * (A worker of an older deploy that lacks a new activity fails such tasks too: deploy activities with
 * the agents that call them.)
 */
async function unknownActivity(): Promise<never> {
  const { activityType } = Context.current().info;
  throw ApplicationFailure.nonRetryable(
    `No activity named "${activityType}" is registered on this worker: export it from the activities module your a2a-temporal config names`,
    UNKNOWN_ACTIVITY,
  );
}
