/** Where commands write and what they read of the outside world, so tests can supply their own. */

export interface Io {
  /** One line (or block) to stdout: results, and nothing but JSON in --json mode. */
  out(text: string): void;
  /** One line to stderr: errors, warnings, hints that must not pollute --json output. */
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  now(): Date;
  /** Terminal width when stdout is a terminal; tables fit in it. */
  columns?: number;
}

export function processIo(): Io {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    now: () => new Date(),
    ...(process.stdout.isTTY && process.stdout.columns && { columns: process.stdout.columns }),
  };
}
