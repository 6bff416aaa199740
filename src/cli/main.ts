#!/usr/bin/env node
/**
 * a2a-temporal: the command-line client of the gateway (A2A over the SDK's own client) plus the
 * Temporal setup command. Run with `npx tsx src/cli/main.ts --help`.
 * Exit codes are a contract with scripts: see ExitCode and EXIT_CODES_HELP in errors.ts.
 */
import { processIo } from './io.js';
import { run } from './run.js';

// `a2a-temporal tasks list | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await run(process.argv.slice(2), processIo());
// Open keep-alive sockets or a Temporal connection must not keep the shell waiting.
process.exit(code);
