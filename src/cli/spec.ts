/**
 * The command line, declared for commander: every command with its arguments, options (environment
 * variables, choices, conflicts) and help texts. A parsed command becomes the Command its runner takes.
 */
import { Argument, Command as Program, Option, type OptionValues } from 'commander';
import { TASK_STATES, type TaskStateName } from '../protocol/states.js';
import type { Command, Content, Transport } from './command.js';
import { EXIT_CODES_HELP, UsageError } from './errors.js';
import { DEFAULT_URL } from './format.js';

const ENVIRONMENT = `
Environment:
  A2A_URL        gateway base URL (agents are served at URL/agents/NAME/)
  A2A_AGENT      default agent of the tasks commands
  A2A_TRANSPORT  jsonrpc (default) or rest
  A2A_RESPONDER  default --as
  A2A_API_KEY    API key for a gateway with authentication (sent as X-API-Key)
  A2A_TOKEN      JWT for a gateway with authentication (sent as Authorization: Bearer)
  A2A_CLI_STATE  chat state file
  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*  for setup`;

const textArgument = (what: string) => new Argument('[TEXT]', `The ${what}; may be left out when --data is given`);
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
const TASK = [
  new Option('--agent <NAME>', "The task's agent (default: the gateway's default agent)").env('A2A_AGENT'),
  ...GATEWAY,
  JSON_OUTPUT,
];
interface Spec {
  summary: string;
  details?: string;
  args?: Argument[];
  options?: Option[];
  examples: string[];
}

/** Each command by the words that name it; a summary shows in the list of its group, the rest in its own help. */
const SPECS: Record<string, Spec> = {
  init: {
    summary: 'Create a project with one agent that asks a human, its activities and a test',
    details:
      'Writes package.json (or adds scripts and dependencies to an existing one), tsconfig.json, a2a-temporal.config.ts, src/agents.ts, src/activities.ts, test/agent.test.ts, vitest.config.ts, README.md and .gitignore into DIR. Existing files are kept. Then: npm install && npm run dev.',
    args: [new Argument('[DIR]', 'Project folder').default('.').argParser((dir) => dir || '.')],
    options: [new Option('--name <NAME>', 'Package name (default: the folder name)')],
    examples: ['a2a-temporal init my-agents', 'a2a-temporal init . --name approvals'],
  },
  dev: {
    summary: "Run a project's agents locally: Temporal dev server + UI, worker and gateway, reloaded on save",
    details:
      'Tasks persist in .data/temporal.db (env A2A_DATA_DB). Saving a file next to the config restarts the worker and the gateway; the dev server and its tasks stay, so waiting tasks keep waiting. With TEMPORAL_ADDRESS set it uses that server instead of starting one. Ports: PORT (8080), GRPC_PORT (8081, "off" disables), TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233).',
    args: [CONFIG],
    examples: ['a2a-temporal dev', 'a2a-temporal dev examples/a2a-temporal.config.ts'],
  },
  worker: {
    summary: "Run a project's agents and activities on a Temporal worker (production)",
    details:
      "Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS* or a TEMPORAL_PROFILE; polls the config's taskQueue (env A2A_TASK_QUEUE wins). Stops on SIGINT/SIGTERM.",
    args: [CONFIG],
    examples: ['a2a-temporal worker', 'TEMPORAL_ADDRESS=temporal:7233 a2a-temporal worker dist/a2a-temporal.config.js'],
  },
  gateway: {
    summary: "Serve a project's agents over A2A: JSON-RPC, HTTP+JSON and gRPC (production)",
    details:
      'Reads the agents for their cards only; never runs them. Environment: PORT (8080), GRPC_PORT (8081, "off" disables), HOST (0.0.0.0), A2A_PUBLIC_URL, A2A_GRPC_PUBLIC_ADDRESS, A2A_DEFAULT_AGENT, A2A_TASK_QUEUE, A2A_TRUSTED_USER_HEADER and the Temporal connection variables of `worker`.',
    args: [CONFIG],
    examples: ['a2a-temporal gateway', 'PORT=9000 GRPC_PORT=off a2a-temporal gateway'],
  },
  send: {
    summary: 'Send a message to an agent (starts a new task)',
    details:
      'Without --stream the call blocks until the task completes, fails or stops to ask for input, then prints the state, the status message and the artifacts. With --stream every status and artifact event is printed as it arrives (--json: one StreamResponse per line).',
    args: [AGENT, textArgument('message')],
    options: [
      new Option('--stream', 'Stream events live (SendStreamingMessage)'),
      new Option('--no-wait', 'Return the submitted task at once (returnImmediately)').conflicts('stream'),
      DATA,
      AS,
      ...GATEWAY,
      JSON_OUTPUT,
    ],
    examples: [
      'a2a-temporal send expense-approval "Please approve 120 USD for a team lunch"',
      `a2a-temporal send long-report "durable execution" --data '{"sections":3,"sectionMs":500}' --stream`,
    ],
  },
  chat: {
    summary: 'Interactive conversation; remembers context and pending questions across restarts',
    details: `Each line you type either answers the pending question (when the last task is waiting for input) or starts a new task in the same conversation. Responses stream live. The context ID and the pending task are kept in a state file (env A2A_CLI_STATE, default $XDG_STATE_HOME/a2a-temporal/chat.json or ~/.local/state/a2a-temporal/chat.json), keyed by gateway URL and agent, so quitting and coming back resumes the conversation.

In the conversation: /quit (or Ctrl+D) exits, /new starts a new conversation, /status shows the pending task. Ctrl+C while a response streams detaches from it (the task keeps running).`,
    args: [AGENT],
    options: [new Option('--new', 'Forget the saved conversation for this agent and start afresh'), AS, ...GATEWAY],
    examples: ['a2a-temporal chat expense-approval'],
  },
  tasks: {
    summary: 'List, show, answer and cancel tasks (a2a-temporal tasks COMMAND --help for details)',
    examples: [
      'a2a-temporal tasks list --state input-required',
      'a2a-temporal tasks show ID',
      'a2a-temporal tasks reply ID approve --as alice',
      'a2a-temporal tasks cancel ID',
    ],
  },
  'tasks list': {
    summary: "List an agent's tasks (ListTasks; newest first, eventually consistent)",
    details: 'Lists come from Temporal visibility, which may lag a second.',
    options: [
      new Option('--state <STATE>', 'Only tasks in this state (TASK_STATE_* names work too)')
        .choices(TASK_STATES)
        .argParser(parseState),
      new Option('--context <ID>', 'Only tasks of this context (conversation)'),
      new Option('--page-size <N>', 'Tasks per page, 1-100 (default 50)').argParser(integer('--page-size', 1, 100)),
      new Option('--page-token <TOKEN>', 'Continue from a previous page'),
      ...TASK,
    ],
    examples: ['a2a-temporal tasks list --state input-required', 'a2a-temporal tasks list --agent echo --json'],
  },
  'tasks show': {
    summary: 'Show a task: state, timeline, pending question, history, artifacts (GetTask)',
    args: [ID],
    options: [
      new Option('--history-length <N>', 'Only the N most recent history messages').argParser(
        integer('--history-length', 0),
      ),
      ...TASK,
    ],
    examples: ['a2a-temporal tasks show 3f0c9a4e-...'],
  },
  'tasks reply': {
    summary: 'Answer a task that is waiting for input (a message with that task ID)',
    details: 'Prints the resulting task like send does; exit code 4 when it ends failed, rejected or canceled.',
    args: [ID, textArgument('answer')],
    options: [DATA, new Option('--stream', 'Stream events live after the answer'), AS, ...TASK],
    examples: [
      'a2a-temporal tasks reply 3f0c9a4e-... approve --as alice',
      `a2a-temporal tasks reply ID --data '{"ok":true}'`,
    ],
  },
  'tasks cancel': {
    summary: 'Cancel a task; returns once its work has really stopped (CancelTask)',
    args: [ID],
    options: [new Option('--as <NAME>', 'Who cancels, recorded in the audit timeline').env('A2A_RESPONDER'), ...TASK],
    examples: ['a2a-temporal tasks cancel 3f0c9a4e-...'],
  },
  setup: {
    summary: 'Register the A2A search attributes on a Temporal namespace (idempotent)',
    details:
      'Adds A2ATaskState, A2AContextId, A2AAgent, A2AOwner (Keyword) and A2AInputDeadline (Datetime) where missing. Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS* (flags win). The dev stack registers them by itself; on Temporal Cloud add them in the Cloud UI or with tcld (the operator API is not open to namespace users there).',
    options: [
      new Option('--namespace <N>', 'Namespace (default "default")').env('TEMPORAL_NAMESPACE'),
      new Option('--address <HOST:PORT>', 'Frontend address (default 127.0.0.1:7233)').env('TEMPORAL_ADDRESS'),
      new Option('--json', 'Machine-readable JSON on stdout: address, namespace, attributes'),
    ],
    examples: ['a2a-temporal setup --address temporal.internal:7233 --namespace prod'],
  },
};

/**
 * The whole command line, built afresh for each parse (commander keeps parsed values on it). Help
 * goes to `write`, a parsed command to `done`; `env` holds the gateway credentials.
 */
export function program(write: (text: string) => void, done: (command: Command) => void, env: NodeJS.ProcessEnv) {
  const cli = new Program('a2a-temporal')
    .description('Run A2A agents durably on Temporal (init, dev, worker, gateway) and talk A2A to them.')
    .usage('COMMAND [options]      (a2a-temporal COMMAND --help for details)')
    .helpOption('-h, --help', 'Show this help')
    .helpCommand('help [COMMAND]', 'Show the help of a command') // args.ts reads `help X Y` as `X Y --help`
    .configureOutput({ writeOut: write, writeErr: write, outputError: () => {} })
    .exitOverride()
    .addHelpText('after', ENVIRONMENT)
    .addHelpText('afterAll', `\n${EXIT_CODES_HELP.join('\n')}`);
  for (const [id, spec] of Object.entries(SPECS)) {
    const words = id.split(' ');
    const parent = words.length > 1 ? cli.commands.find((group) => group.name() === words[0])! : cli;
    const cmd = parent
      .command(words.at(-1)!)
      .summary(spec.summary)
      .description(`${spec.summary}.${spec.details ? `\n\n${spec.details}` : ''}`)
      .addHelpText('after', `\nExamples:\n${spec.examples.map((line) => `  ${line}`).join('\n')}`);
    spec.args?.forEach((arg) => cmd.addArgument(arg));
    spec.options?.forEach((option) => cmd.addOption(option));
    if (id !== 'tasks') cmd.action(() => done(toCommand(id, cmd, env)));
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
    ...(cmd.options.includes(DATA) && { content: content(kind, text, data) }),
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

function ignore(): void {}

/** Every command of a program, the program first. */
export function everyCommand(cmd: Program): Program[] {
  return [cmd, ...cmd.commands.flatMap(everyCommand)];
}

/** A command's name as typed after a2a-temporal, e.g. "tasks list"; "" for the program. */
export function commandId(cmd: Program): string {
  return cmd.parent ? [commandId(cmd.parent), cmd.name()].filter(Boolean).join(' ') : '';
}

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
  return url.href.replace(/\/+$/, '');
}

export function parseTransport(raw: string): Transport {
  const name = raw.trim().toLowerCase();
  if (name === 'jsonrpc' || name === 'json-rpc') return 'JSONRPC';
  if (name === 'rest' || name === 'http+json' || name === 'http') return 'HTTP+JSON';
  throw new UsageError(`Unknown transport "${raw}": use jsonrpc or rest`);
}

/** Accepts input-required, INPUT_REQUIRED, TASK_STATE_INPUT_REQUIRED, and the British "cancelled". */
export function parseState(raw: string): TaskStateName {
  const name = raw
    .trim()
    .toLowerCase()
    .replace(/^task_state_/, '')
    .replace(/_/g, '-');
  const state = name === 'cancelled' ? 'canceled' : name;
  if ((TASK_STATES as readonly string[]).includes(state)) return state as TaskStateName;
  throw new UsageError(`Unknown task state "${raw}". States: ${TASK_STATES.join(', ')}`);
}

function integer(option: string, min: number, max = Number.MAX_SAFE_INTEGER): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (/^\d+$/.test(raw.trim()) && Number.isSafeInteger(value) && value >= min && value <= max) return value;
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}-${max}`;
    throw new UsageError(`${option} must be an integer ${range} (got "${raw}")`);
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

function content(id: string, text: string | undefined, data: unknown): Content {
  if (text || data !== undefined) return { ...(text && { text }), ...(data !== undefined && { data }) };
  throw new UsageError(`Nothing to send: give TEXT and/or --data JSON. See: a2a-temporal ${id} --help`);
}

/** Headers that authenticate the caller: from the environment only, so no secret lands in shell history. */
function credentials(env: NodeJS.ProcessEnv): { credentials?: Record<string, string> } {
  const { A2A_API_KEY: key, A2A_TOKEN: token } = env;
  return key || token
    ? { credentials: { ...(key && { 'x-api-key': key }), ...(token && { authorization: `Bearer ${token}` }) } }
    : {};
}
