/**
 * Finds and reads a project's `a2a-temporal.config.*`: the agents module (imported for metadata;
 * the worker also bundles it) and the activities module, resolved against the config file.
 * TypeScript files load through tsx when the process has no TypeScript loader of its own.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentDefinition } from '../workflows/agent-api.js';
import { agentsFromModule } from '../workflows/agent-list.js';
import type { ModelProvider } from '../llm/model-settings.js';
import type { A2ATemporalConfig } from './define-config.js';
import { checkedSchedules, type CheckedSchedule } from './schedules.js';
import { APPROVAL_CHANNELS, isApprovalChannel, reminderOffset } from '../protocol/approvals.js';
import type { RemoteAgentConfig } from '../protocol/delegation.js';
import { checkRemoteAgents } from './remote-agents.js';
import { ConfigError } from './config-error.js';

const CONFIG_FILE_NAMES = [
  'a2a-temporal.config.ts',
  'a2a-temporal.config.mts',
  'a2a-temporal.config.js',
  'a2a-temporal.config.mjs',
];

export interface LoadedConfig {
  /** Absolute path of the config file. */
  file: string;
  /** Absolute path of the agents module. */
  agentsModule: string;
  /** Absolute path of the activities module, if any. */
  activitiesModule?: string;
  /** The agents, in the order the module lists them; the gateway reads their metadata only. */
  agents: readonly AgentDefinition[];
  taskQueue?: string;
  defaultAgent?: string;
  /** As the config gives it; the worker completes it from the environment (src/worker/deployment.ts). */
  workerDeployment?: A2ATemporalConfig['workerDeployment'];
  /** As the config gives it, the directory's path made absolute. */
  approvals?: A2ATemporalConfig['approvals'];
  /** The remote agents that calls may name, checked. */
  remoteAgents?: Record<string, RemoteAgentConfig>;
  /** The scheduled tasks, checked, with their defaults; the worker makes them Temporal Schedules (src/schedules). */
  schedules: CheckedSchedule[];
  /** Imports the activities module (Node code: only workers need it). */
  loadActivities(): Promise<object>;
  /** Imports the model providers module's providers, by export name (Node code: only workers need it). */
  loadModelProviders(): Promise<Record<string, ModelProvider>>;
}

/** The config file: `path` if given (a file, or a folder to look in), else the first known name in `cwd`. */
export function findConfigFile(path: string | undefined, cwd: string = process.cwd()): string {
  const given = path ? resolve(cwd, path) : undefined;
  if (given && !isDirectory(given)) {
    if (!existsSync(given)) throw new ConfigError(`No config file at ${given}.`);
    return given;
  }
  const dir = given ?? cwd;
  const found = CONFIG_FILE_NAMES.map((name) => resolve(dir, name)).find((file) => existsSync(file));
  if (!found) {
    throw new ConfigError(
      `No ${CONFIG_FILE_NAMES[0]} in ${dir}. Create a project with \`npx a2a-temporal init\`, or pass the config file's path.`,
    );
  }
  return found;
}

export async function loadConfig(path?: string, cwd: string = process.cwd()): Promise<LoadedConfig> {
  const file = findConfigFile(path, cwd);
  const config = (await importModule(file, 'config file')).default as Partial<A2ATemporalConfig> | undefined;
  if (!config || typeof config.agents !== 'string') {
    throw new ConfigError(
      `${file} must \`export default defineConfig({ agents: './path/to/agents.ts', activities?: ... })\`.`,
    );
  }
  const agentsModule = moduleFile(file, config.agents, 'agents');
  const activitiesModule =
    config.activities === undefined ? undefined : moduleFile(file, config.activities, 'activities');
  const providersModule =
    config.modelProviders === undefined ? undefined : moduleFile(file, config.modelProviders, 'model providers');
  const agents = agentsFromModule(await importModule(agentsModule, 'agents module'), agentsModule);
  if (config.defaultAgent !== undefined && !agents.some((agent) => agent.name === config.defaultAgent)) {
    throw new ConfigError(
      `${file}: defaultAgent "${config.defaultAgent}" is not one of the agents (${agents.map((a) => a.name).join(', ')}).`,
    );
  }
  const remoteAgents = config.remoteAgents === undefined ? undefined : checkRemoteAgents(config.remoteAgents);
  if (typeof remoteAgents === 'string') throw new ConfigError(`${file}: ${remoteAgents}`);
  const schedules = checkedSchedules(
    config.schedules ?? [],
    agents.map((agent) => agent.name),
  );
  if ('problems' in schedules) throw new ConfigError(`${file}: ${schedules.problems}`);
  return {
    file,
    agentsModule,
    schedules: schedules.schedules,
    ...(activitiesModule && { activitiesModule }),
    agents,
    ...(config.taskQueue && { taskQueue: config.taskQueue }),
    ...(config.defaultAgent && { defaultAgent: config.defaultAgent }),
    ...(config.workerDeployment && { workerDeployment: config.workerDeployment }),
    ...(config.approvals && { approvals: checkedApprovals(file, config.approvals) }),
    ...(remoteAgents && { remoteAgents }),
    loadActivities: async () =>
      activitiesModule ? { ...(await importModule(activitiesModule, 'activities module')) } : {},
    loadModelProviders: async () =>
      providersModule
        ? modelProvidersOf(await importModule(providersModule, 'model providers module'), providersModule)
        : {},
  };
}

/** The approvals settings, with a clear error for a channel or reminder the runtime would refuse later. */
function checkedApprovals(file: string, approvals: NonNullable<A2ATemporalConfig['approvals']>) {
  for (const channel of approvals.notify ?? []) {
    if (!isApprovalChannel(channel)) {
      throw new ConfigError(
        `${file}: approvals.notify: unknown channel "${channel}" (known: ${APPROVAL_CHANNELS.join(', ')}).`,
      );
    }
  }
  for (const text of approvals.remind ?? []) {
    if (!reminderOffset(text)) {
      throw new ConfigError(`${file}: approvals.remind: "${text}" must read like '1 day before'.`);
    }
  }
  if (approvals.directory === undefined) return approvals;
  const directory = resolve(dirname(file), approvals.directory);
  if (!existsSync(directory)) {
    throw new ConfigError(`${file}: approvals.directory ${approvals.directory} does not exist (${directory}).`);
  }
  return { ...approvals, directory };
}

/** The module's exports that are AI SDK providers; one that is not is a mistake worth naming. */
function modelProvidersOf(module: Record<string, unknown>, file: string): Record<string, ModelProvider> {
  const providers: Record<string, ModelProvider> = {};
  for (const [name, value] of Object.entries(module)) {
    if (name === 'default') continue;
    if (typeof (value as Partial<ModelProvider> | null)?.languageModel !== 'function') {
      throw new ConfigError(`${file}: the export "${name}" is not an AI SDK provider (it has no languageModel).`);
    }
    providers[name] = value as ModelProvider;
  }
  return providers;
}

function moduleFile(configFile: string, relative: string, what: string): string {
  const file = resolve(dirname(configFile), relative);
  if (!existsSync(file))
    throw new ConfigError(`${configFile}: the ${what} module ${relative} does not exist (${file}).`);
  return file;
}

export async function importModule(file: string, what: string): Promise<{ default?: unknown }> {
  const url = pathToFileURL(file).href;
  try {
    try {
      return (await import(url)) as { default?: unknown };
    } catch (error) {
      // TypeScript in a process without a loader for it (e.g. this package under vitest): register tsx, try again.
      if ((error as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
      (await import('tsx/esm/api')).register();
      // Node remembers the failed import of `url`; the query makes this a fresh one.
      return (await import(`${url}?with-tsx`)) as { default?: unknown };
    }
  } catch (error) {
    throw new ConfigError(`Could not load the ${what} ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
