/**
 * The CLI run in this process against a harness's gateway, as `run` runs it from bin/: the exit
 * code and what it printed to stdout and stderr (each joined by lines). `env`: the CLI's environment.
 */
import { run } from '../../src/cli/run.js';
import type { Harness } from './gateway-harness.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export function cliAgainst(harness: Harness, env: NodeJS.ProcessEnv = {}) {
  return async (...argv: string[]): Promise<CliResult> => {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (text: string) => out.push(text),
      err: (text: string) => err.push(text),
      env,
      now: () => new Date(),
    };
    const code = await run([...argv, '--url', harness.gateway.url], io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}
