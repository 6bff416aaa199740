/**
 * The CLI run in this process against a harness's gateway, as `run` runs it from bin/: the exit
 * code and what it printed to stdout and stderr (each joined by lines). `env`: the CLI's environment.
 */
import type { Io } from '../../src/cli/io.js';
import { run } from '../../src/cli/run.js';
import type { Harness } from './gateway-harness.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export function cliAgainst(harness: Harness, env: NodeJS.ProcessEnv = {}) {
  return async (...argv: string[]): Promise<CliResult> => {
    const { io, printed } = collectingIo(env);
    const code = await run([...argv, '--url', harness.gateway.url], io);
    return { code, ...printed() };
  };
}

/** An Io that keeps what a command prints: `printed()` joins its stdout and its stderr lines. */
export function collectingIo(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text), env, now: () => new Date() };
  return { io, printed: () => ({ out: out.join('\n'), err: err.join('\n') }) };
}
