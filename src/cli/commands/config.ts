/**
 * `config [CONFIG]`: every setting as this process would run with it, where its value comes from
 * (the environment, the project config, or the default) and secrets masked. A wrong value is a
 * usage error naming the variable, as it is for the commands that would use it.
 */
import type { Command } from '../command.js';
import { findConfigFile, loadConfig, type LoadedConfig } from '../../config/load-config.js';
import { plainDefault, SETTING_GROUPS, type Declaration } from '../../config/setting.js';
import { givenValue, readSettings, SETTINGS, type SettingName } from '../../config/settings.js';
import { maskUrl } from '../../channels/mask.js';
import { ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { renderTable } from '../table.js';

type ConfigCommand = Extract<Command, { kind: 'config' }>;

type Source = 'env' | 'project config' | 'default';

interface EffectiveSetting {
  name: SettingName;
  group: string;
  value: string;
  source: Source;
}

export async function runConfig(command: ConfigCommand, io: Io): Promise<ExitCode> {
  readSettings(io.env);
  const project = await projectConfig(command.config);
  const settings = (Object.keys(SETTINGS) as SettingName[]).map((name) => effective(name, io.env, project));
  if (command.json) {
    io.out(JSON.stringify({ ...(project && { config: project.file }), settings }));
    return ExitCode.Ok;
  }
  if (project) io.out(`Project config: ${project.file}\n`);
  const headers = ['SETTING', 'VALUE', 'SOURCE'];
  for (const [group, title] of Object.entries(SETTING_GROUPS)) {
    const rows = settings.filter((setting) => setting.group === group).map((s) => [s.name, s.value, s.source]);
    io.out(`${title}\n${renderTable(headers, rows, { indent: '  ', ...(io.columns && { maxWidth: io.columns }) })}\n`);
  }
  return ExitCode.Ok;
}

/** The project config the command names, else the current folder's if it has one. */
async function projectConfig(path: string | undefined): Promise<LoadedConfig | undefined> {
  if (path === undefined && !hasConfigFile()) return undefined;
  return loadConfig(path);
}

function hasConfigFile(): boolean {
  try {
    findConfigFile(undefined);
    return true;
  } catch {
    return false;
  }
}

function effective(name: SettingName, env: NodeJS.ProcessEnv, project: LoadedConfig | undefined): EffectiveSetting {
  const declaration: Declaration = SETTINGS[name];
  const base = { name, group: declaration.group };
  const given = givenValue(env, name);
  if (given !== undefined) return { ...base, value: shown(declaration, given), source: 'env' };
  const configured = declaration.projectKey && valueAt(project, declaration.projectKey);
  if (configured) return { ...base, value: shown(declaration, configured), source: 'project config' };
  return { ...base, value: plainDefault(declaration) ?? '(none)', source: 'default' };
}

/** A secret as much as tells which it is: a URL by its host (its path may hold the secret), else nothing. */
function shown(declaration: Declaration, value: string): string {
  if (!declaration.secret) return value;
  return URL.canParse(value) ? maskUrl(value) : '***';
}

/** The config's value at a dotted key (`approvals.directory`), as text; undefined when it says none. */
function valueAt(project: LoadedConfig | undefined, key: string): string | undefined {
  let value: unknown = project;
  for (const part of key.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
  if (value === undefined || value === null) return undefined;
  return typeof value === 'object' ? '(given in the config)' : String(value);
}
