/**
 * How a worker bundles its workflows: this package's task workflow with the project's agents module
 * inside, its workflow interceptors (metrics, coalesced upserts) and the modules every workflow
 * shares. The agents plugin (agents-plugin.ts) and the deploy check's replay (src/deploy-check) both
 * bundle this way, so a replay runs the code a worker would.
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
import type { ApprovalDefaults } from '../workflows/approver-notifications.js';
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

/** The workflow settings a worker takes to run the project's agents (none when it was given a built bundle). */
type BundledWorkflows = Pick<WorkerOptions, 'workflowsPath' | 'bundlerOptions' | 'interceptors'>;

/**
 * How a worker of the project's agents bundles its workflows: what `configureWorker` (and
 * `configureReplayWorker`) adds to the options a worker was given.
 */
export function agentsBundleSettings(
  agents: string | URL,
  approvals: ApprovalDefaults | undefined,
): <W extends BundledWorkflows & Pick<WorkerOptions, 'workflowBundle'>>(worker: W) => W {
  const hook = agentsWebpackHook(agents, approvalDefaults(approvals));
  return (worker) => (worker.workflowBundle ? worker : { ...worker, ...bundleSettings(worker, hook) });
}

/** A replay worker bundled as the agents plugin bundles a worker: the deploy check replays the code a worker would run. */
export function agentsReplayPlugin(agents: string | URL, approvals: ApprovalDefaults | undefined): WorkerPlugin {
  const bundled = agentsBundleSettings(agents, approvals);
  return {
    name: 'a2a-temporal.agents-bundle',
    configureReplayWorker: (worker: ReplayWorkerOptions): ReplayWorkerOptions => bundled(worker),
  };
}

function bundleSettings(worker: BundledWorkflows, hook: WebpackConfigHook): BundledWorkflows {
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
function approvalDefaults(settings: ApprovalDefaults | undefined): ApprovalDefaults {
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
