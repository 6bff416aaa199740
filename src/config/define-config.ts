/**
 * The one place a project names its agents and activities. The worker bundles the agents module
 * into its workflow code and registers the activities; the gateway reads the agents' metadata for
 * its cards (it never runs them); the dev stack does both. Pure: safe to import anywhere.
 */
import type { ApprovalChannel } from '../protocol/approvals.js';
import type { RemoteAgentConfig } from '../protocol/delegation.js';
import type { AgentVersioning } from '../protocol/versioning.js';

/**
 * A project's `a2a-temporal.config.ts`: its agents and activities, and what the worker, the gateway
 * and the dev stack need to know about them. Write it with {@link defineConfig}.
 */
export interface A2ATemporalConfig {
  /**
   * Module whose default export is the agents to serve (an array, or a single agent). It runs
   * inside Temporal's workflow sandbox, so it may import only `a2a-temporal` and sandbox-safe code.
   * Relative to the config file.
   */
  agents: string;
  /** Module whose exported functions are the agents' activities (Node: all I/O). Relative to the config file. */
  activities?: string;
  /**
   * Module whose named exports are AI SDK providers (`export const anthropic = createAnthropic()`):
   * an LLM agent's `model: 'anthropic:claude-sonnet-4-5'` runs on the export named `anthropic`.
   * Node code, loaded by the worker only. Relative to the config file.
   */
  modelProviders?: string;
  /** Task queue of the worker and of the tasks the gateway starts. Default 'a2a-temporal'; env A2A_TASK_QUEUE wins. */
  taskQueue?: string;
  /** Agent served at the gateway root and to gRPC callers that name no tenant. Default: the first agent; env A2A_DEFAULT_AGENT wins. */
  defaultAgent?: string;
  /**
   * Worker Versioning: the worker runs as version `buildId` of deployment `name`, and agents without
   * `versioning` of their own get `defaultVersioning` (default 'pinned'). Env A2A_WORKER_DEPLOYMENT,
   * A2A_WORKER_BUILD_ID and A2A_WORKER_VERSIONING win. Only the `worker` command reads it (not `dev`).
   */
  workerDeployment?: {
    /** The worker deployment's name. */
    name?: string;
    /** This worker's build ID: its version within the deployment. */
    buildId?: string;
    /** The versioning of agents without `versioning` of their own. Default 'pinned'. */
    defaultVersioning?: AgentVersioning;
  };
  /**
   * Notifying approvers when a question waits (docs/channels.md). `directory`: a JSON
   * file of principals (email, webhook) and groups, relative to the config file (env
   * A2A_APPROVER_DIRECTORY when absent). `notify` and `remind`: what questions without their own
   * take, e.g. `notify: ['email'], remind: ['1 day before']`. A change of them changes what waiting
   * tasks schedule: deploy it as any workflow change.
   */
  approvals?: {
    /** The approver directory: a JSON file of principals and groups, relative to the config file. */
    directory?: string;
    /** The channels questions without a `notify` of their own tell their approvers by. Default: none. */
    notify?: ApprovalChannel[];
    /** The reminders of questions without a `remind` of their own, e.g. `['1 day before']`. */
    remind?: string[];
  };
  /**
   * Remote A2A agents that agents call by name (`ctx.callAgent('supplier', …)`), e.g.
   * `supplier: { urlEnv: 'SUPPLIER_AGENT_URL', credentials: { bearerTokenEnv: 'SUPPLIER_TOKEN' } }`:
   * `url`, or `urlEnv` naming the worker's variable that holds it on each deployment; `transport`
   * and `credentials` apply where the call gives none. Read by the worker at each call.
   */
  remoteAgents?: Record<string, RemoteAgentConfig>;
  /**
   * Scheduled tasks (docs/schedules.md): each becomes a Temporal Schedule whose runs are
   * ordinary tasks of `agent`, owned by `owner`, with `message` as their first message. The worker
   * brings Temporal's schedules in line with this list when it starts.
   */
  schedules?: ScheduledTask[];
}

/** One of the config's `schedules`: a task of `agent` started on a timer (docs/schedules.md). */
export interface ScheduledTask {
  /** Names the schedule (letters, digits, `.`, `_`, `-`): `a2a-temporal schedules pause ID`, and its tasks' IDs. */
  id: string;
  /** The agent each run is a task of. */
  agent: string;
  /** How often, e.g. '1 hour' or '30 minutes' (at least 1 second); or `cron`, not both. */
  every?: string;
  /** A cron expression in UTC, e.g. '0 9 * * MON-FRI'; or `every`, not both. */
  cron?: string;
  /** The first user message of each run. */
  message: string;
  /** Who owns each run's task (an account ID): who sees it when the gateway authenticates. */
  owner: string;
  /** When a run is due while the previous one still runs (e.g. waits for input). Default 'skip'. */
  overlap?: ScheduleOverlap;
}

/** Temporal's overlap policies, in the config's spelling ('buffer-one' is BUFFER_ONE). */
export const SCHEDULE_OVERLAPS = [
  'skip',
  'buffer-one',
  'buffer-all',
  'cancel-other',
  'terminate-other',
  'allow-all',
] as const;
/** What a schedule does when a run is due while the previous one still runs: one of {@link SCHEDULE_OVERLAPS}. */
export type ScheduleOverlap = (typeof SCHEDULE_OVERLAPS)[number];

/**
 * Types a config file's default export.
 *
 * @example
 * // a2a-temporal.config.ts
 * import { defineConfig } from 'a2a-temporal';
 *
 * export default defineConfig({
 *   agents: './src/agents.ts', // default export: your agents (runs in Temporal's workflow sandbox)
 *   activities: './src/activities.ts', // exported functions: your activities (Node, all I/O)
 *   approvals: { directory: './approvers.json', notify: ['email'], remind: ['1 day before'] },
 *   schedules: [{ id: 'daily', agent: 'spend-report', cron: '0 9 * * MON-FRI', message: 'Yesterday', owner: 'alice' }],
 * });
 */
export function defineConfig(config: A2ATemporalConfig): A2ATemporalConfig {
  return config;
}
