/**
 * Command-line parsing: argv in, one typed Command out, or a UsageError (exit code 1) that names the
 * problem and points at --help. commander does the parsing (the program is declared in spec.ts),
 * in-process: nothing is printed and nothing exits here.
 */
import type { CommanderError, Command as Program } from 'commander';
import { UsageError } from './errors.js';
import { commandHint } from './format.js';
import type { Command } from './command.js';
import { commandId, everyCommand, program } from './spec.js';

export { parseState, parseTransport } from './spec.js';

/** How a parse that asked for help ends: `topic` is the command whose help to print ("" for all). */
class HelpRequest {
  constructor(readonly topic: string) {}
}

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Command {
  let command: Command = { kind: 'help' };
  const cli = program(
    () => {},
    (parsed) => (command = parsed),
    env,
  );
  for (const cmd of everyCommand(cli)) cmd.exitOverride((error) => reject(cmd, error, env));
  // Option.env() reads process.env; the CLI reads the environment it is given (tests give their own),
  // with an empty variable taken as unset. parse() is synchronous, so nothing else sees the swap.
  const processEnv = process.env;
  process.env = Object.fromEntries(Object.entries(env).filter(([, value]) => value));
  try {
    cli.parse(argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv, { from: 'user' });
  } catch (error) {
    if (error instanceof HelpRequest) return { kind: 'help', ...(error.topic && { topic: error.topic }) };
    throw error;
  } finally {
    process.env = processEnv;
  }
  return command;
}

/** commander's exits (help, usage errors) as a HelpRequest or a one-line UsageError. */
function reject(cmd: Program, error: CommanderError, env: NodeJS.ProcessEnv): never {
  const id = commandId(cmd);
  const seeHelp = commandHint(`${id ? `${id} ` : ''}--help`, {}, env);
  const help = error.code === 'commander.helpDisplayed' || error.code === 'commander.help';
  // A group (the program, tasks) asked for help or run with a name that is none of its commands.
  const operand = cmd.commands.length > 0 ? cmd.args.find((arg) => !/^-|^help$/.test(arg)) : undefined;
  if (operand !== undefined && (help || error.code === 'commander.unknownCommand')) {
    const suggestion = /\(Did you mean .*\?\)/.exec(error.message)?.[0];
    const name = [id, operand].filter(Boolean).join(' ');
    throw new UsageError(`Unknown command "${name}"${suggestion ? ` ${suggestion}` : ''}. Try: ${seeHelp}`);
  }
  if (help) throw new HelpRequest(id);
  const message =
    error.code === 'commander.excessArguments'
      ? `Unexpected argument(s): ${cmd.args.slice(cmd.registeredArguments.length).join(' ')} (quote text with spaces)`
      : error.message
          .replace(/^error: /, '')
          .replace(/\.?\s*\n\s*/g, ' ')
          .replace(/\.$/, '');
  throw new UsageError(`${message[0]!.toUpperCase()}${message.slice(1)}. See: ${seeHelp}`);
}
