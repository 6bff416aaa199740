/**
 * The command line, declared for commander: every command with its arguments and options
 * (environment variables, choices, conflicts, value parsers); its help prose is in help-texts.ts.
 * A parsed command becomes the Command its runner takes.
 */
import { Argument, Command as Program, Option, type OptionValues } from 'commander';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import { fromWireState, TASK_STATES, type TaskStateName } from '../protocol/states.js';
import type { Command, Content, Transport } from './command.js';
import { EXIT_CODES_HELP, UsageError } from './errors.js';
import { commandHint, DEFAULT_URL } from './format.js';
import { ENVIRONMENT, HELP_TEXTS, type HelpText } from './help-texts.js';

const text = (what: string) => new Argument('[TEXT]', `The ${what}; may be left out when --data is given`);
const AGENT = new Argument('<AGENT>', 'The agent').argParser(nonEmpty('AGENT'));
const ID = new Argument('<ID>', 'The task ID').argParser(nonEmpty('ID'));
const CONFIG = new Argument(
  '[CONFIG]',
  'An a2a-temporal.config.ts (or .mts, .js, .mjs), or a folder holding one (default: the current folder). It names the agents module (sandboxed workflow code) and the activities module.',
);
const DATA = new Option('--data <JSON>', 'Structured content, sent as a DataPart').argParser(parseJson);
const AS = new Option('--as <NAME>', 'Who is answering, for allowed-responder checks and the audit timeline').env(
  'A2A_RESPONDER',
);
const GATEWAY = [
  new Option('--url <URL>', 'Gateway base URL').env('A2A_URL').default(DEFAULT_URL).argParser(parseUrl),
  new Option('--transport <NAME>', 'A2A transport')
    .env('A2A_TRANSPORT')
    .choices(['jsonrpc', 'rest'])
    .argParser(parseTransport) // after choices(), which it replaces: the choices stay for the help
    .default('JSONRPC', 'jsonrpc'),
];
const JSON_OUTPUT = new Option('--json', 'Machine-readable JSON on stdout (A2A v1.0 wire shapes)');
const AGENT_OPTION = new Option(
  '--agent <NAME>',
  "The task's agent (default: the gateway's default agent, or the agent the gateway names for the task)",
);
const TASK = [AGENT_OPTION.env('A2A_AGENT'), ...GATEWAY, JSON_OUTPUT];
/** How the commands that talk to Temporal itself (not the gateway) reach it. */
const TEMPORAL = [
  new Option('--namespace <N>', 'Namespace (default "default")').env('TEMPORAL_NAMESPACE'),
  new Option('--address <HOST:PORT>', 'Frontend address (default 127.0.0.1:7233)').env('TEMPORAL_ADDRESS'),
];
const SCHEDULE = new Argument('<ID>', "The schedule's id in the config").argParser(nonEmpty('ID'));
const LIST_AGENT_OPTION = new Option('--agent <NAME>', "Only this agent's tasks (default: every agent's)");

/** Each command by the words that name it, with its arguments and options in the order the help lists them. */
const COMMAND_LINE = {
  init: [
    new Argument('[DIR]', 'Project folder').default('.').argParser((dir) => dir || '.'),
    new Option('--name <NAME>', 'Package name (default: the folder name)'),
  ],
  dev: [CONFIG],
  worker: [CONFIG],
  gateway: [CONFIG],
  config: [CONFIG, new Option('--json', 'Machine-readable JSON on stdout: each setting with its value and source')],
  send: [
    AGENT,
    text('message'),
    new Option('--stream', 'Stream events live (SendStreamingMessage)'),
    new Option('--no-wait', 'Return the submitted task at once (returnImmediately)').conflicts('stream'),
    DATA,
    AS,
    ...GATEWAY,
    JSON_OUTPUT,
  ],
  chat: [AGENT, new Option('--new', 'Forget the saved conversation for this agent and start afresh'), AS, ...GATEWAY],
  tasks: [],
  'tasks list': [
    new Option('--state <STATE>', 'Only tasks in this state (TASK_STATE_* names work too)')
      .choices(TASK_STATES)
      .argParser(parseState),
    new Option('--context <ID>', 'Only tasks of this context (conversation)'),
    new Option('--page-size <N>', 'Tasks per page, 1-100 (default 50)').argParser(integer('--page-size', 1, 100)),
    new Option('--page-token <TOKEN>', 'Continue from a previous page (of the agent its "More:" line names)'),
    LIST_AGENT_OPTION.env('A2A_AGENT'),
    ...GATEWAY,
    JSON_OUTPUT,
  ],
  'tasks show': [
    ID,
    new Option('--history-length <N>', 'Only the N most recent history messages').argParser(
      integer('--history-length', 0),
    ),
    ...TASK,
  ],
  'tasks reply': [
    ID,
    text('answer'),
    DATA,
    new Option('--stream', 'Stream events live after the answer'),
    new Option('--no-wait', 'Return once the answer is taken, not once the task settles').conflicts('stream'),
    new Option(
      '--question <ID>',
      'The open question this answers, by its id (tasks show lists them); needed while several wait',
    ).argParser(nonEmpty('--question')),
    AS,
    ...TASK,
  ],
  'tasks cancel': [
    ID,
    new Option('--as <NAME>', 'Who cancels, recorded in the audit timeline').env('A2A_RESPONDER'),
    ...TASK,
  ],
  'tasks unblock': [
    new Argument('[ID]', 'The task ID').argParser(nonEmpty('ID')),
    new Option('--all', 'Every blocked task of the task queue (env A2A_TASK_QUEUE, default a2a-temporal)'),
    ...TEMPORAL,
  ],
  inbox: [
    new Option('--agent <NAME>', "Only this agent's questions (default: every agent's)").env('A2A_AGENT'),
    new Option('--sort <ORDER>', 'deadline: the soonest deadline first; age: the longest waiting first')
      .choices(['deadline', 'age'])
      .default('deadline'),
    ...GATEWAY,
    new Option('--json', 'Machine-readable JSON on stdout: the questions as the inbox lists them'),
  ],
  'check-deploy': [
    CONFIG,
    new Option('--sample <N>', 'Replay at most N open tasks, those waiting for input first (default: all)').argParser(
      integer('--sample', 1),
    ),
    new Option('--histories <PATH>', 'Replay saved histories (a .json file or a folder of them) instead of open tasks'),
    new Option('--json', 'Machine-readable JSON on stdout: the tasks replayed and those that would break'),
  ],
  setup: [...TEMPORAL, new Option('--json', 'Machine-readable JSON on stdout: address, namespace, attributes')],
  schedules: [],
  'schedules list': [
    ...TEMPORAL,
    new Option('--json', 'Machine-readable JSON on stdout: the schedules as the table lists them'),
  ],
  'schedules pause': [
    SCHEDULE,
    new Option('--note <TEXT>', 'Why, shown in the Temporal UI and by schedules list'),
    ...TEMPORAL,
  ],
  'schedules resume': [SCHEDULE, ...TEMPORAL],
  'schedules trigger': [SCHEDULE, ...TEMPORAL],
  receipts: [],
  'receipts verify': [
    new Argument('<FILE>', "A receipt: the compact JWS a task's decision-receipt artifact holds").argParser(
      nonEmpty('FILE'),
    ),
    new Option(
      '--jwks <URL|FILE>',
      "The signer's public keys: a JWKS file or URL (default: the gateway's, URL/.well-known/a2a-temporal/receipts-jwks.json)",
    ),
    GATEWAY[0]!,
  ],
  audit: [],
  'audit export': [
    new Option('--since <TIME>', 'Records from this time on (ISO 8601, e.g. 2026-11-01 or 2026-11-01T08:00Z)')
      .argParser(parseTime('--since'))
      .makeOptionMandatory(),
    new Option('--until <TIME>', 'Records before this time (default: now)').argParser(parseTime('--until')),
    LIST_AGENT_OPTION,
    new Option('--format <FORMAT>', 'Output format: one JSON record per line').choices(['jsonl']).default('jsonl'),
    new Option('--out <FILE>', 'Write to FILE (default: stdout)'),
    ...TEMPORAL,
  ],
  'audit verify': [
    new Argument('<FILE>', 'An audit export (jsonl) to check for removed or altered lines').argParser(nonEmpty('FILE')),
  ],
} satisfies Record<string, (Argument | Option)[]>;

type CommandId = keyof typeof COMMAND_LINE;

/** A command without its help text does not compile. */
const HELP: Record<CommandId, HelpText> = HELP_TEXTS;

/** The commands that only name others (`tasks list`, `schedules pause`). */
const GROUPS: string[] = ['tasks', 'schedules', 'receipts', 'audit'];

/**
 * The whole command line, built afresh for each parse (commander keeps parsed values on it). Help
 * goes to `write`, a parsed command to `done`; `env` holds the gateway credentials.
 */
export function program(write: (text: string) => void, done: (command: Command) => void, env: NodeJS.ProcessEnv) {
  const cli = new Program('a2a-temporal')
    .description('Run A2A agents durably on Temporal (init, dev, worker, gateway, check-deploy) and talk A2A to them.')
    .usage('COMMAND [options]      (a2a-temporal COMMAND --help for details)')
    .helpOption('-h, --help', 'Show this help')
    .helpCommand('help [COMMAND]', 'Show the help of a command') // args.ts reads `help X Y` as `X Y --help`
    .configureOutput({ writeOut: write, writeErr: write, outputError: () => {} })
    .exitOverride()
    .addHelpText('after', ENVIRONMENT)
    .addHelpText('afterAll', `\n${EXIT_CODES_HELP.join('\n')}`);
  for (const [id, items] of Object.entries(COMMAND_LINE)) {
    const { summary, details, examples } = HELP[id as CommandId];
    const [group, name] = id.split(' ');
    const cmd = (name ? cli.commands.find((parent) => parent.name() === group)! : cli)
      .command(name ?? id)
      .summary(summary)
      // A summary that asks a question has its full stop already.
      .description(`${summary}${summary.endsWith('?') ? '' : '.'}${details ? `\n\n${details}` : ''}`)
      .addHelpText('after', `\nExamples:\n${examples.map((line) => `  ${line}`).join('\n')}`);
    items.forEach((item) => (item instanceof Argument ? cmd.addArgument(item) : cmd.addOption(item)));
    if (!GROUPS.includes(id)) cmd.action(() => done(toCommand(id, cmd, env)));
  }
  return cli;
}

/** The Command of a parsed command: its arguments and options by name (renamed where a runner's field differs). */
function toCommand(kind: string, cmd: Program, env: NodeJS.ProcessEnv): Command {
  const flags = cmd.options.filter((option) => option.isBoolean() && !option.negate);
  const values: OptionValues = {
    ...Object.fromEntries(flags.map((flag) => [flag.attributeName(), false])),
    ...cmd.opts(),
  };
  cmd.registeredArguments.forEach((arg, index) => (values[arg.name().toLowerCase()] = cmd.processedArgs[index]));
  const { url, transport, as, new: fresh, wait, context, text, data, ...rest } = values;
  const command: Record<string, unknown> = {
    kind,
    ...rest,
    ...(url && { gateway: { url, transport, ...credentials(env) } }),
    ...(cmd.options.includes(DATA) && { content: content(kind, text, data, env) }),
    ...(fresh !== undefined && { fresh }),
    ...(wait !== undefined && { noWait: !wait }),
    ...(as && { responder: as }),
    ...(context && { contextId: context }),
  };
  // An empty value is no value, as an empty environment variable is unset.
  return Object.fromEntries(
    Object.entries(command).filter(([, value]) => value !== undefined && value !== ''),
  ) as Command;
}

/** Every command of a program, the program first. */
export function everyCommand(cmd: Program): Program[] {
  return [cmd, ...cmd.commands.flatMap(everyCommand)];
}

/** A command's name as typed after a2a-temporal, e.g. "tasks list"; "" for the program. */
export function commandId(cmd: Program): string {
  return cmd.parent ? [commandId(cmd.parent), cmd.name()].filter(Boolean).join(' ') : '';
}

function ignore(): void {}

/** Every command with its usage line (what its help prints after "Usage: a2a-temporal"). */
export const COMMANDS = everyCommand(program(ignore, ignore, {}))
  .slice(1)
  .map((cmd) => ({ id: commandId(cmd), usage: `${commandId(cmd)} ${cmd.usage()}` }));

/** One spelling per gateway (no trailing slash), so the chat state file keys do not depend on it. */
function parseUrl(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url) throw new UsageError(`Invalid gateway URL "${raw}" (expected e.g. ${DEFAULT_URL})`);
  if (!/^https?:$/.test(url.protocol))
    throw new UsageError(`Invalid gateway URL "${raw}": only http and https are supported`);
  return withoutTrailingSlashes(url.href);
}

export function parseTransport(raw: string): Transport {
  const name = raw.trim().toLowerCase();
  if (name === 'jsonrpc' || name === 'json-rpc') return 'JSONRPC';
  if (name === 'rest' || name === 'http+json' || name === 'http') return 'HTTP+JSON';
  throw new UsageError(`Unknown transport "${raw}": use jsonrpc or rest`);
}

/** Accepts input-required, INPUT_REQUIRED, TASK_STATE_INPUT_REQUIRED, and the British "cancelled". */
export function parseState(raw: string): TaskStateName {
  const state = fromWireState(
    raw
      .trim()
      .toUpperCase()
      .replace(/(^|_)CANCELLED$/, '$1CANCELED'),
  );
  if (state) return state;
  throw new UsageError(`Unknown task state "${raw}". States: ${TASK_STATES.join(', ')}`);
}

function integer(option: string, min: number, max = Number.MAX_SAFE_INTEGER): (raw: string) => number {
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}-${max}`;
  return (raw) => {
    const value = Number(raw);
    if (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(value) && value >= min && value <= max) return value;
    throw new UsageError(`${option} must be an integer ${range} (got "${raw}")`);
  };
}

function parseTime(option: string): (raw: string) => Date {
  return (raw) => {
    const time = new Date(raw.trim());
    if (raw.trim() && !Number.isNaN(time.getTime())) return time;
    throw new UsageError(`${option} must be an ISO 8601 time, e.g. 2026-11-01 or 2026-11-01T08:00:00Z (got "${raw}")`);
  };
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new UsageError(`--data is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function nonEmpty(name: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw new UsageError(`${name} must not be empty`);
    return value;
  };
}

function content(id: string, text: string | undefined, data: unknown, env: NodeJS.ProcessEnv): Content {
  if (text || data !== undefined) return { ...(text && { text }), ...(data !== undefined && { data }) };
  throw new UsageError(`Nothing to send: give TEXT and/or --data JSON. See: ${commandHint(`${id} --help`, {}, env)}`);
}

/** Headers that authenticate the caller: from the environment only, so no secret lands in shell history. */
function credentials(env: NodeJS.ProcessEnv): { credentials?: Record<string, string> } {
  const { A2A_API_KEY: key, A2A_TOKEN: token } = env;
  return key || token
    ? { credentials: { ...(key && { 'x-api-key': key }), ...(token && { authorization: `Bearer ${token}` }) } }
    : {};
}
