/**
 * Parses a command line, runs the command and turns any failure into its exit code and message.
 * Separate from main.ts so tests can call it without starting a process.
 */
import { parseCommandLine } from './args.js';
import type { Command } from './command.js';
import { runChat } from './commands/chat.js';
import { runCheckDeploy } from './commands/check-deploy.js';
import { runConfig } from './commands/config.js';
import { runInbox } from './commands/inbox.js';
import { runDev, runGateway, runWorker } from './commands/serve.js';
import { runInit } from './commands/init.js';
import { runSend } from './commands/send.js';
import { runSchedules } from './commands/schedules.js';
import { runReceiptsVerify } from './commands/receipts.js';
import { runAuditExport, runAuditVerify } from './commands/audit.js';
import { runTasksUnblock } from './commands/unblock.js';
import { runSetup } from './commands/setup.js';
import { runTasksCancel, runTasksList, runTasksShow } from './commands/tasks.js';
import { ExitCode, toCliError, type CliError } from './errors.js';
import { helpFor } from './help.js';
import type { Io } from './io.js';

export async function run(argv: readonly string[], io: Io): Promise<ExitCode> {
  let command: Command | undefined;
  try {
    command = parseCommandLine(argv, io.env);
    return await dispatch(command, io);
  } catch (error) {
    const gatewayUrl = command && 'gateway' in command ? command.gateway.url : (io.env.A2A_URL ?? '');
    const failure = toCliError(error, { gatewayUrl });
    report(failure, command, io);
    return failure.exitCode;
  }
}

async function dispatch(command: Command, io: Io): Promise<ExitCode> {
  switch (command.kind) {
    case 'help':
      io.out(helpFor(command.topic));
      return ExitCode.Ok;
    case 'init':
      return runInit(command, io);
    case 'dev':
      return runDev(command, io);
    case 'worker':
      return runWorker(command, io);
    case 'gateway':
      return runGateway(command, io);
    case 'config':
      return runConfig(command, io);
    case 'send':
    case 'tasks reply':
      return runSend(command, io);
    case 'chat':
      return runChat(command, io);
    case 'tasks list':
      return runTasksList(command, io);
    case 'tasks show':
      return runTasksShow(command, io);
    case 'tasks cancel':
      return runTasksCancel(command, io);
    case 'setup':
      return runSetup(command, io);
    case 'tasks unblock':
      return runTasksUnblock(command, io);
    case 'schedules list':
    case 'schedules pause':
    case 'schedules resume':
    case 'schedules trigger':
      return runSchedules(command, io);
    case 'check-deploy':
      return runCheckDeploy(command, io);
    case 'inbox':
      return runInbox(command, io);
    case 'receipts verify':
      return runReceiptsVerify(command, io);
    case 'audit export':
      return runAuditExport(command, io);
    case 'audit verify':
      return runAuditVerify(command, io);
  }
}

/** Errors go to stderr; with --json, stdout also gets them as JSON so a script's parser sees them. */
function report(failure: CliError, command: Command | undefined, io: Io): void {
  io.err(`error: ${failure.message}`);
  if (command && 'json' in command && command.json) {
    io.out(
      JSON.stringify({
        error: {
          exitCode: failure.exitCode,
          message: failure.message,
          ...(failure.code !== undefined && { code: failure.code }),
        },
      }),
    );
  }
}
