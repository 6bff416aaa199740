/**
 * The command that starts the local stack (`a2a-temporal dev`) where the CLI runs, for hints such
 * as "is it running?": the script of the nearest package.json that runs it (as npm finds it), so
 * `npm run dev` in a project made by `init` and `npm start` in this repository; else the command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commandHint, shellWord } from './format.js';

/** `a2a-temporal dev`, also as this repository runs it (`node bin/a2a-temporal.js dev ...`). */
const RUNS_DEV = /\ba2a-temporal(?:\.js)?\s+dev(?:\s|$)/;

export function devCommand(dir = process.cwd()): string {
  const scripts = Object.entries(nearestScripts(dir));
  const name = scripts.find(([, script]) => typeof script === 'string' && RUNS_DEV.test(script))?.[0];
  if (name === undefined) return commandHint('dev');
  return name === 'start' ? 'npm start' : `npm run ${shellWord(name)}`;
}

function nearestScripts(dir: string): Record<string, unknown> {
  const file = join(dir, 'package.json');
  if (existsSync(file)) {
    try {
      return (JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, unknown> }).scripts ?? {};
    } catch {
      return {}; // not a package.json npm could run scripts from either
    }
  }
  return dirname(dir) === dir ? {} : nearestScripts(dirname(dir));
}
