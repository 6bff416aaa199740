/** The `a2a-temporal` CLI run as a user runs it: its own process, this repository's bin, plain output. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `a2a-temporal ...args` to its exit, with `env` over this process's environment. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/a2a-temporal.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr, ms: Math.round(performance.now() - started) })),
  );
}
