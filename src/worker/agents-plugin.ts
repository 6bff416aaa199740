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
import {
  bundleWorkflowCode,
  type BundleOptions,
  type ReplayWorkerOptions,
  type WorkerOptions,
  type WorkerPlugin,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ApproverChannelOptions } from '../package-activities/approver-notices.js';
import { createPackageActivities } from '../package-activities/index.js';
import type { ApprovalDefaults } from '../workflows/approver-notifications.js';
import { reportRetries } from './retry-reports.js';
import { unblockOnStart } from './unblock-tasks.js';
import { reportDivergences } from './divergence-reports.js';
import { checkToolActivities } from './tool-activities-check.js';
import { UNKNOWN_ACTIVITY } from '../protocol/errors.js';
import type { ModelSettings } from '../llm/model-settings.js';
import { readSettings, type Settings } from '../config/settings.js';
import type { RemoteAgentConfig } from '../protocol/delegation.js';
import { SHARED_MODULES_GLOBAL, SHARED_ZOD_ENTRIES, type SharedZodEntry } from '../workflows/shared-modules-global.js';

/** The alias bundled-workflows.ts imports the project's agents module by. */
const USER_AGENTS_MODULE = 'a2a-temporal-user-agents';
/** .ts in a checkout (run through tsx), .js in the built package. */
const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
/** The file the worker bundles as its workflows: the task workflow over the project's agents. */
const BUNDLED_WORKFLOWS = fileURLToPath(new URL(`./bundled-workflows${EXTENSION}`, import.meta.url));
const PACKAGE_ROOT_MODULE = fileURLToPath(new URL(`../index${EXTENSION}`, import.meta.url));
/** Workflow interceptors of every task: its metrics, and its upserts coalesced per activation. */
const WORKFLOW_INTERCEPTOR_MODULES = ['metrics-interceptors', 'coalesced-upserts'].map((name) =>
  fileURLToPath(new URL(`../workflows/${name}${EXTENSION}`, import.meta.url)),
);

/**
 * Temporal's sandbox evaluates the bundle's modules again for every workflow (its module cache is per
 * workflow), so what evaluation costs, every task pays. Webpack's scope hoisting joins the ES modules
 * (the agents, this package) into one function instead of one per module with its export getters,
 * and drops the modules nothing uses (as each package's `sideEffects` field allows): less worker CPU
 * per task (bench/README.md, "What bought what"). Temporal bundles in development mode, which leaves
 * these off. The shared zod depends on it (sharedZodStaysWhole).
 */
const SCOPE_HOISTING = { concatenateModules: true, usedExports: true, innerGraph: true, sideEffects: true };

/**
 * Preloaded: evaluated once per worker, before any workflow, and shared by all of them. zod (see
 * src/workflows/shared-zod.ts) and the rest of Temporal's workflow API, most of which its sandbox
 * already shares: no task pays for evaluating them, nor keeps a copy (bench/README.md, "What bought
 * what" and path 7).
 */
const SHARED_ZOD_MODULE = fileURLToPath(new URL(`../workflows/shared-zod${EXTENSION}`, import.meta.url));
const PRELOADED_MODULES = ['@temporalio/workflow', SHARED_ZOD_MODULE];
/** Where each shared zod entry resolves from this package (a project's own, other zod stays per workflow). */
const SHARED_ZOD_FILES = new Map(SHARED_ZOD_ENTRIES.map((entry) => [entry, fileURLToPath(import.meta.resolve(entry))]));
const ZOD_DIR = dirname(SHARED_ZOD_FILES.get('zod')!) + sep;

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;
type WebpackConfig = Parameters<WebpackConfigHook>[0];
/** What webpack tells a function in `externals` of an import (the fields used here). */
interface ImportRequest {
  context?: string;
  request?: string;
  contextInfo?: { issuer: string };
  getResolve?: (options?: never) => unknown;
}
type WebpackPlugin = NonNullable<WebpackConfig['plugins']>[number];

/** Workflow code's zod imports read the worker's shared zod (shared-zod.ts imports the real one). */
async function sharedZodImports({ context, request, contextInfo, getResolve }: ImportRequest): Promise<string | false> {
  const file = SHARED_ZOD_FILES.get(request as SharedZodEntry);
  if (!file || !context || !getResolve || contextInfo?.issuer === SHARED_ZOD_MODULE) return false;
  const resolve = getResolve() as (context: string, request: string) => Promise<string>;
  return (await resolve(context, request!)) === file
    ? `var globalThis.${SHARED_MODULES_GLOBAL}.get(${JSON.stringify(request)})`
    : false;
}

/**
 * Fails the bundle if any of the shared zod's modules is left outside shared-zod.ts (zod imported by
 * another path, or scope hoisting turned off): the sandbox would freeze it, and zod's checks would
 * throw in every task. (zod's CommonJS files and its v3 are never shared, so never frozen.)
 */
const sharedZodStaysWhole: WebpackPlugin = {
  apply(compiler) {
    compiler.hooks.compilation.tap('a2a-temporal.shared-zod', (compilation) => {
      compilation.hooks.afterOptimizeChunkModules.tap('a2a-temporal.shared-zod', (chunks) => {
        const isSharedZodFile = (resource?: string) =>
          resource?.startsWith(ZOD_DIR) && !resource.endsWith('.cjs') && !resource.startsWith(`${ZOD_DIR}v3${sep}`);
        // What the bundle evaluates as modules, each with the modules joined into it.
        const apart = [...chunks]
          .flatMap((chunk) => [...compilation.chunkGraph.getChunkModulesIterable(chunk)])
          .map(
            (module) =>
              module as {
                resource?: string;
                rootModule?: { resource?: string };
                modules?: Iterable<{ resource?: string }>;
              },
          )
          .filter((module) => (module.rootModule?.resource ?? module.resource) !== SHARED_ZOD_MODULE)
          .flatMap((module) => (module.modules ? [...module.modules] : [module]))
          .map((module) => module.resource)
          .filter(isSharedZodFile);
        if (apart.length === 0) return;
        compilation.errors.push(
          new compiler.webpack.WebpackError(
            `a2a-temporal shares one zod among all workflows, bundled whole: ${relative(ZOD_DIR, apart[0]!)} was left outside it. ` +
              `Import zod in workflow code by one of ${SHARED_ZOD_ENTRIES.join(', ')}, and keep optimization.concatenateModules on.`,
          ),
        );
      });
    });
  },
};

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
  const hook = agentsWebpackHook(options.agents, approvalDefaults(options.approvals));
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
      return {
        ...worker,
        activities: {
          // An agent calling an activity nobody registered fails at once, saying so (below).
          default: unknownActivity,
          ...packaged.activities,
          ...(options.activities as WorkerOptions['activities']),
          ...worker.activities,
        },
        ...(!worker.workflowBundle && bundleSettings(worker, hook)),
      };
    },
    async runWorker(worker, next) {
      // Before it polls, so that this worker is not running a task's workflow task while it is reset.
      await unblockOnStart(worker);
      // A task this worker's code cannot continue is said in words: the log's alert and the task's blocked marker.
      reportDivergences(worker, {
        agentsModule: typeof options.agents === 'string' ? options.agents : fileURLToPath(options.agents),
        agents: [],
        // What the bundle takes of them (below): the replay's code is this worker's.
        approvals: approvalDefaults(options.approvals),
      });
      try {
        await next(worker);
      } finally {
        await packaged.close();
      }
    },
    configureReplayWorker(worker: ReplayWorkerOptions): ReplayWorkerOptions {
      return { ...worker, ...(!worker.workflowBundle && bundleSettings(worker, hook)) };
    },
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

/**
 * The workflow bundle of a project's agents, built once (tests share one across many workers): pass
 * it as a worker's `workflowBundle`.
 *
 * @param agents - path or file URL of the agents module.
 * @param options - Temporal's bundler options (the package sets `workflowsPath` and its preloads).
 * @param approvals - the defaults of questions' `notify` and `remind` (the config's `approvals`).
 */
export async function bundleAgents(
  agents: string | URL,
  options: Partial<Omit<BundleOptions, 'workflowsPath'>> = {},
  approvals?: ApprovalDefaults,
): Promise<WorkflowBundleWithSourceMap> {
  refuseOwnPreloads(options.preloadModules);
  return bundleWorkflowCode({
    ...options,
    workflowsPath: BUNDLED_WORKFLOWS,
    workflowInterceptorModules: [...(options.workflowInterceptorModules ?? []), ...WORKFLOW_INTERCEPTOR_MODULES],
    preloadModules: PRELOADED_MODULES,
    webpackConfigHook: chain(options.webpackConfigHook, agentsWebpackHook(agents, approvalDefaults(approvals))),
  });
}

function bundleSettings(
  worker: Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions' | 'interceptors'>,
  hook: WebpackConfigHook,
): Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions' | 'interceptors'> {
  if (worker.workflowsPath && worker.workflowsPath !== BUNDLED_WORKFLOWS) {
    throw new Error(
      "The a2a-temporal agents plugin needs the worker's workflow bundle: run your other workflows on a worker (and task queue) of their own.",
    );
  }
  refuseOwnPreloads(worker.bundlerOptions?.preloadModules);
  return {
    workflowsPath: BUNDLED_WORKFLOWS,
    interceptors: {
      ...worker.interceptors,
      workflowModules: [...(worker.interceptors?.workflowModules ?? []), ...WORKFLOW_INTERCEPTOR_MODULES],
    },
    bundlerOptions: {
      ...worker.bundlerOptions,
      preloadModules: PRELOADED_MODULES,
      webpackConfigHook: chain(worker.bundlerOptions?.webpackConfigHook, hook),
    },
  };
}

/**
 * The sandbox deep-freezes every module it preloads, with what it exports: a project's own preloaded
 * module that imports zod would freeze the shared zod's state, and its checks would throw in every task.
 */
function refuseOwnPreloads(preloadModules: string[] | undefined): void {
  if (preloadModules?.length) {
    throw new Error(
      "The a2a-temporal agents plugin preloads the modules its workflows share (zod, Temporal's workflow API), " +
        'and a module of your own preloaded beside them could freeze the shared zod: remove bundlerOptions.preloadModules from this worker.',
    );
  }
}

/** Only the defaults go into the bundle (no directory, no addresses): the workflow decides with them, deterministically. */
function approvalDefaults(settings: ApprovalSettings | undefined): ApprovalDefaults {
  return {
    ...(settings?.notify && { notify: settings.notify }),
    ...(settings?.remind && { remind: settings.remind }),
  };
}

/**
 * The project's approval defaults, written into the bundle as a constant (approver-notifications.ts
 * reads it): workflow code cannot read the config, and a value fixed per bundle replays the same.
 */
function approvalDefaultsPlugin(defaults: ApprovalDefaults): WebpackPlugin {
  return {
    apply(compiler) {
      new compiler.webpack.DefinePlugin({ A2A_TEMPORAL_APPROVAL_DEFAULTS: JSON.stringify(defaults) }).apply(compiler);
    },
  };
}

function agentsWebpackHook(agents: string | URL, approvals: ApprovalDefaults): WebpackConfigHook {
  const agentsPath = agents instanceof URL || agents.startsWith('file:') ? fileURLToPath(agents) : resolve(agents);
  return (config) => {
    const resolve = config.resolve ?? {};
    const alias = Array.isArray(resolve.alias) ? {} : (resolve.alias ?? {});
    return {
      ...config,
      resolve: {
        ...resolve,
        alias: { ...alias, [`${USER_AGENTS_MODULE}$`]: agentsPath, 'a2a-temporal$': PACKAGE_ROOT_MODULE },
      },
      externals: [config.externals ?? [], sharedZodImports].flat(),
      plugins: [...(config.plugins ?? []), sharedZodStaysWhole, approvalDefaultsPlugin(approvals)],
      // A project's own webpackConfigHook runs first: what it set wins.
      optimization: { ...SCOPE_HOISTING, ...config.optimization },
    };
  };
}

function chain(first: WebpackConfigHook | undefined, second: WebpackConfigHook): WebpackConfigHook {
  return first ? (config) => second(first(config)) : second;
}
