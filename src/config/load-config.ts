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
import type { A2ATemporalConfig } from './define-config.js';

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
  /** Imports the activities module (Node code: only workers need it). */
  loadActivities(): Promise<object>;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
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
  const agents = agentsFromModule(await importModule(agentsModule, 'agents module'), agentsModule);
  if (config.defaultAgent !== undefined && !agents.some((agent) => agent.name === config.defaultAgent)) {
    throw new ConfigError(
      `${file}: defaultAgent "${config.defaultAgent}" is not one of the agents (${agents.map((a) => a.name).join(', ')}).`,
    );
  }
  return {
    file,
    agentsModule,
    ...(activitiesModule && { activitiesModule }),
    agents,
    ...(config.taskQueue && { taskQueue: config.taskQueue }),
    ...(config.defaultAgent && { defaultAgent: config.defaultAgent }),
    ...(config.workerDeployment && { workerDeployment: config.workerDeployment }),
    loadActivities: async () =>
      activitiesModule ? { ...(await importModule(activitiesModule, 'activities module')) } : {},
  };
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
