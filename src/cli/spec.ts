/**
 * Every command's arguments and options, in one table: the parser (args.ts) and the help texts
 * (help.ts) both read it, so what `--help` says is what the parser accepts.
 */

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder shown in help, e.g. URL. */
  value?: string;
  description: string;
}

export type CommandId =
  | 'init'
  | 'dev'
  | 'worker'
  | 'gateway'
  | 'send'
  | 'chat'
  | 'tasks list'
  | 'tasks show'
  | 'tasks reply'
  | 'tasks cancel'
  | 'setup';

export interface CommandSpec {
  id: CommandId;
  usage: string;
  summary: string;
  /** Extra paragraphs for the command's own help. */
  details?: string[];
  options: Record<string, OptionSpec>;
  examples: string[];
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

const HELP: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
};
const JSON_OUTPUT: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'Machine-readable JSON on stdout (A2A v1.0 wire shapes)' },
};
const GATEWAY: Record<string, OptionSpec> = {
  url: { type: 'string', value: 'URL', description: `Gateway base URL (env A2A_URL, default ${DEFAULT_URL})` },
  transport: {
    type: 'string',
    value: 'NAME',
    description: 'A2A transport: jsonrpc (default) or rest (env A2A_TRANSPORT)',
  },
};
const RESPONDER: Record<string, OptionSpec> = {
  as: {
    type: 'string',
    value: 'NAME',
    description: 'Who is answering, for allowed-responder checks and the audit timeline (env A2A_RESPONDER)',
  },
};
const TASK_AGENT: Record<string, OptionSpec> = {
  agent: {
    type: 'string',
    value: 'NAME',
    description: "The task's agent (env A2A_AGENT; default: the gateway's default agent)",
  },
};
const DATA: Record<string, OptionSpec> = {
  data: { type: 'string', value: 'JSON', description: 'Structured content, sent as a DataPart' },
};

const CONFIG_DETAILS = [
  'CONFIG is an a2a-temporal.config.ts (or .mts, .js, .mjs) file, or a folder holding one; default: the',
  'current folder. It names the agents module (sandboxed workflow code) and the activities module.',
];

export const COMMANDS: readonly CommandSpec[] = [
  {
    id: 'init',
    usage: 'init [DIR] [--name NAME]',
    summary: 'Create a project with one agent that asks a human, its activities and a test',
    details: [
      'Writes package.json (or adds scripts and dependencies to an existing one), tsconfig.json,',
      'a2a-temporal.config.ts, src/agents.ts, src/activities.ts, test/agent.test.ts, vitest.config.ts,',
      'README.md and .gitignore into DIR (default: the current folder). Existing files are kept.',
      'Then: npm install && npm run dev.',
    ],
    options: {
      name: { type: 'string', value: 'NAME', description: 'Package name (default: the folder name)' },
      ...HELP,
    },
    examples: ['a2a-temporal init my-agents', 'a2a-temporal init . --name approvals'],
  },
  {
    id: 'dev',
    usage: 'dev [CONFIG]',
    summary: "Run a project's agents locally: Temporal dev server + UI, worker and gateway, reloaded on save",
    details: [
      ...CONFIG_DETAILS,
      'Tasks persist in .data/temporal.db (env A2A_DATA_DB). Saving a file next to the config restarts',
      'the worker and the gateway; the dev server and its tasks stay, so waiting tasks keep waiting.',
      'With TEMPORAL_ADDRESS set it uses that server instead of starting one. Ports: PORT (8080),',
      'GRPC_PORT (8081, "off" disables), TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233).',
    ],
    options: { ...HELP },
    examples: ['a2a-temporal dev', 'a2a-temporal dev examples/a2a-temporal.config.ts'],
  },
  {
    id: 'worker',
    usage: 'worker [CONFIG]',
    summary: "Run a project's agents and activities on a Temporal worker (production)",
    details: [
      ...CONFIG_DETAILS,
      'Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS* or a',
      "TEMPORAL_PROFILE; polls the config's taskQueue (env A2A_TASK_QUEUE wins). Stops on SIGINT/SIGTERM.",
    ],
    options: { ...HELP },
    examples: ['a2a-temporal worker', 'TEMPORAL_ADDRESS=temporal:7233 a2a-temporal worker dist/a2a-temporal.config.js'],
  },
  {
    id: 'gateway',
    usage: 'gateway [CONFIG]',
    summary: "Serve a project's agents over A2A: JSON-RPC, HTTP+JSON and gRPC (production)",
    details: [
      ...CONFIG_DETAILS,
      'Reads the agents for their cards only; never runs them. Environment: PORT (8080), GRPC_PORT',
      '(8081, "off" disables), HOST (0.0.0.0), A2A_PUBLIC_URL, A2A_GRPC_PUBLIC_ADDRESS, A2A_DEFAULT_AGENT,',
      'A2A_TASK_QUEUE, A2A_TRUSTED_USER_HEADER and the Temporal connection variables of `worker`.',
    ],
    options: { ...HELP },
    examples: ['a2a-temporal gateway', 'PORT=9000 GRPC_PORT=off a2a-temporal gateway'],
  },
  {
    id: 'send',
    usage: 'send AGENT [TEXT] [--data JSON] [--stream] [--json]',
    summary: 'Send a message to an agent (starts a new task)',
    details: [
      'Without --stream the call blocks until the task completes, fails or stops to ask for input,',
      'then prints the state, the status message and the artifacts. With --stream every status and',
      'artifact event is printed as it arrives (--json: one StreamResponse per line).',
      'TEXT may be omitted when --data is given.',
    ],
    options: {
      stream: { type: 'boolean', description: 'Stream events live (SendStreamingMessage)' },
      'no-wait': { type: 'boolean', description: 'Return the submitted task at once (returnImmediately)' },
      ...DATA,
      ...RESPONDER,
      ...GATEWAY,
      ...JSON_OUTPUT,
      ...HELP,
    },
    examples: [
      'a2a-temporal send expense-approval "Please approve 120 USD for a team lunch"',
      `a2a-temporal send long-report "durable execution" --data '{"sections":3,"sectionMs":500}' --stream`,
    ],
  },
  {
    id: 'chat',
    usage: 'chat AGENT [--new]',
    summary: 'Interactive conversation; remembers context and pending questions across restarts',
    details: [
      'Each line you type either answers the pending question (when the last task is waiting for',
      'input) or starts a new task in the same conversation. Responses stream live. The context ID',
      'and the pending task are kept in a state file (env A2A_CLI_STATE, default',
      '$XDG_STATE_HOME/a2a-temporal/chat.json or ~/.local/state/a2a-temporal/chat.json), keyed by',
      'gateway URL and agent, so quitting and coming back resumes the conversation.',
      'In the conversation: /quit (or Ctrl+D) exits, /new starts a new conversation, /status shows',
      'the pending task. Ctrl+C while a response streams detaches from it (the task keeps running).',
    ],
    options: {
      new: { type: 'boolean', description: 'Forget the saved conversation for this agent and start afresh' },
      ...RESPONDER,
      ...GATEWAY,
      ...HELP,
    },
    examples: ['a2a-temporal chat expense-approval'],
  },
  {
    id: 'tasks list',
    usage: 'tasks list [--agent A] [--state S] [--context C] [--page-size N] [--page-token T] [--json]',
    summary: "List an agent's tasks (ListTasks; newest first, eventually consistent)",
    details: [
      'States: submitted, working, input-required, auth-required, completed, failed, canceled, rejected',
      '(TASK_STATE_* names work too). Lists come from Temporal visibility, which may lag a second.',
    ],
    options: {
      ...TASK_AGENT,
      state: { type: 'string', value: 'STATE', description: 'Only tasks in this state, e.g. input-required' },
      context: { type: 'string', value: 'ID', description: 'Only tasks of this context (conversation)' },
      'page-size': { type: 'string', value: 'N', description: 'Tasks per page, 1-100 (default 50)' },
      'page-token': { type: 'string', value: 'TOKEN', description: 'Continue from a previous page' },
      ...GATEWAY,
      ...JSON_OUTPUT,
      ...HELP,
    },
    examples: ['a2a-temporal tasks list --state input-required', 'a2a-temporal tasks list --agent echo --json'],
  },
  {
    id: 'tasks show',
    usage: 'tasks show ID [--agent A] [--history-length N] [--json]',
    summary: 'Show a task: state, timeline, pending question, history, artifacts (GetTask)',
    options: {
      ...TASK_AGENT,
      'history-length': { type: 'string', value: 'N', description: 'Only the N most recent history messages' },
      ...GATEWAY,
      ...JSON_OUTPUT,
      ...HELP,
    },
    examples: ['a2a-temporal tasks show 3f0c9a4e-...'],
  },
  {
    id: 'tasks reply',
    usage: 'tasks reply ID [TEXT] [--data JSON] [--stream] [--agent A] [--json]',
    summary: 'Answer a task that is waiting for input (a message with that task ID)',
    details: ['Prints the resulting task like send does; exit code 4 when it ends failed, rejected or canceled.'],
    options: {
      ...DATA,
      stream: { type: 'boolean', description: 'Stream events live after the answer' },
      ...RESPONDER,
      ...TASK_AGENT,
      ...GATEWAY,
      ...JSON_OUTPUT,
      ...HELP,
    },
    examples: [
      'a2a-temporal tasks reply 3f0c9a4e-... approve --as alice',
      `a2a-temporal tasks reply ID --data '{"ok":true}'`,
    ],
  },
  {
    id: 'tasks cancel',
    usage: 'tasks cancel ID [--agent A] [--json]',
    summary: 'Cancel a task; returns once its work has really stopped (CancelTask)',
    options: {
      as: { type: 'string', value: 'NAME', description: 'Who cancels, for the audit timeline (env A2A_RESPONDER)' },
      ...TASK_AGENT,
      ...GATEWAY,
      ...JSON_OUTPUT,
      ...HELP,
    },
    examples: ['a2a-temporal tasks cancel 3f0c9a4e-...'],
  },
  {
    id: 'setup',
    usage: 'setup [--namespace N] [--address HOST:PORT] [--json]',
    summary: 'Register the A2A search attributes on a Temporal namespace (idempotent)',
    details: [
      'Adds A2ATaskState, A2AContextId, A2AAgent, A2AOwner (Keyword) and A2AInputDeadline (Datetime)',
      'where missing. Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and',
      'TEMPORAL_TLS* (flags win). The dev stack registers them by itself; on Temporal Cloud add them',
      'in the Cloud UI or with tcld (the operator API is not open to namespace users there).',
    ],
    options: {
      namespace: { type: 'string', value: 'N', description: 'Namespace (env TEMPORAL_NAMESPACE, default "default")' },
      address: {
        type: 'string',
        value: 'HOST:PORT',
        description: 'Frontend address (env TEMPORAL_ADDRESS, default 127.0.0.1:7233)',
      },
      json: { type: 'boolean', description: 'Machine-readable JSON on stdout: address, namespace, attributes' },
      ...HELP,
    },
    examples: ['a2a-temporal setup --address temporal.internal:7233 --namespace prod'],
  },
];

export function commandSpec(id: CommandId): CommandSpec {
  const spec = COMMANDS.find((command) => command.id === id);
  if (!spec) throw new Error(`No spec for command ${id}`);
  return spec;
}

export const EXIT_CODES_HELP = [
  'Exit codes:',
  '    0  success',
  '    1  usage error (unknown command or option, missing argument, invalid --data JSON)',
  '    2  gateway or Temporal unreachable, or the connection dropped mid-call',
  '    3  the gateway answered with an error: A2A error (code and message printed, e.g. -32001',
  '       task not found), unknown agent, unexpected response; setup: Temporal refused',
  '    4  send/reply: the task ended failed, rejected or canceled',
  '  130  interrupted with Ctrl+C while following a task (the task keeps running)',
];
