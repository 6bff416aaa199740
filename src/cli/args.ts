/**
 * Command-line parsing: argv in, one typed Command out, or a UsageError (exit code 1) that names the
 * problem and points at --help. commander does the parsing (the program is declared in spec.ts),
 * in-process: nothing is printed and nothing exits here.
 */
import type { CommanderError, Command as Program } from 'commander';
import type { TaskStateName } from '../protocol/states.js';
import { UsageError } from './errors.js';
import { commandHint } from './format.js';
import { commandId, everyCommand, program } from './spec.js';

export { parseState, parseTransport } from './spec.js';

export type Transport = 'JSONRPC' | 'HTTP+JSON';

/** How the CLI reaches a gateway: base URL (no trailing slash), transport, and the caller's credential headers. */
export interface GatewayConnection {
  url: string;
  transport: Transport;
  credentials?: Record<string, string>;
}

/** Text and/or structured content of an outgoing message. */
export interface Content {
  text?: string;
  data?: unknown;
}

/** What the commands about one agent's tasks share; no agent: the gateway's default agent (served at its root). */
type TaskCommand = { gateway: GatewayConnection; agent?: string; json: boolean };
/** A message out: `send` starts a task with it, `tasks reply` answers one. */
type Outgoing = { content: Content; stream: boolean; responder?: string };
/** Where setup and schedules reach Temporal; absent: TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, else the defaults. */
type TemporalTarget = { namespace?: string; address?: string };
type ListFilters = { state?: TaskStateName; contextId?: string; pageSize?: number; pageToken?: string };

/** What the runners in commands/ take. `noWait`: returnImmediately, the submitted task instead of a settled one. */
export type Command =
  | { kind: 'help'; topic?: string }
  | { kind: 'init'; dir: string; name?: string }
  | { kind: 'dev' | 'worker' | 'gateway'; config?: string }
  | { kind: 'config'; config?: string; json: boolean }
  | ({ kind: 'setup'; json: boolean } & TemporalTarget)
  | ({ kind: 'schedules list'; json: boolean } & TemporalTarget)
  | ({ kind: 'schedules pause'; id: string; note?: string } & TemporalTarget)
  | ({ kind: 'schedules resume'; id: string } & TemporalTarget)
  | ({ kind: 'schedules trigger'; id: string } & TemporalTarget)
  | (TaskCommand & { kind: 'inbox'; sort: 'deadline' | 'age' })
  | { kind: 'check-deploy'; json: boolean; config?: string; sample?: number; histories?: string }
  | { kind: 'chat'; gateway: GatewayConnection; agent: string; fresh: boolean; responder?: string }
  | (TaskCommand & Outgoing & { kind: 'send'; agent: string; noWait: boolean })
  | (TaskCommand & Outgoing & { kind: 'tasks reply'; id: string; noWait: boolean; question?: string })
  | (TaskCommand & ListFilters & { kind: 'tasks list' })
  | (TaskCommand & { kind: 'tasks show'; id: string; historyLength?: number })
  | (TaskCommand & { kind: 'tasks cancel'; id: string; responder?: string })
  | ({ kind: 'tasks unblock'; id?: string; all: boolean } & TemporalTarget)
  | { kind: 'receipts verify'; file: string; jwks?: string; gateway: Pick<GatewayConnection, 'url'> }
  | ({
      kind: 'audit export';
      since: Date;
      until?: Date;
      agent?: string;
      format: 'jsonl';
      out?: string;
    } & TemporalTarget)
  | { kind: 'audit verify'; file: string };

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
