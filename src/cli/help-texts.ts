/**
 * What the help says besides the usage, arguments and options commander renders from spec.ts: each
 * command's summary (listed in its group's help), details and examples, and the environment the
 * program's help lists. Prose only; the exit codes come from errors.ts.
 */
import { SEARCH_ATTRIBUTE_DEFINITIONS, searchAttributeTypeName } from '../protocol/search-attributes.js';
import { plainDefault, plainText } from '../config/setting.js';
import { CLI_SETTINGS } from '../config/settings/cli.js';

/** "A2ATaskState (Keyword), ...": what `setup` registers, from the one list of them. */
const SEARCH_ATTRIBUTES_TEXT = SEARCH_ATTRIBUTE_DEFINITIONS.map(
  ({ name, type }) => `${name} (${searchAttributeTypeName(type)})`,
).join(', ');

/** The program's environment, from the CLI's settings as src/config/settings/cli.ts declares them. */
export const ENVIRONMENT = environmentText();

function environmentText(): string {
  const width = Math.max(...Object.keys(CLI_SETTINGS).map((name) => name.length));
  const lines = Object.entries(CLI_SETTINGS).map(([name, declaration]) => {
    const fallback = plainDefault(declaration);
    return `  ${name.padEnd(width)}  ${plainText(declaration.description)}${fallback ? ` (default: ${fallback})` : ''}`;
  });
  const temporal = 'The Temporal connection (TEMPORAL_ADDRESS, ...: `a2a-temporal config` lists them)';
  return ['', 'Environment:', ...lines, `  ${temporal} for setup, schedules, check-deploy and tasks unblock`].join(
    '\n',
  );
}

export interface HelpText {
  summary: string;
  details?: string;
  examples: string[];
}

/** Each command's help, by its id (spec.ts checks that every command of its command line has one). */
export const HELP_TEXTS = {
  init: {
    summary: 'Create a project with one agent that asks a human, its activities and a test',
    details: `Writes package.json (or adds scripts and dependencies to an existing one), tsconfig.json, a2a-temporal.config.ts, src/agents.ts, src/activities.ts, test/agent.test.ts, test/deploy-safety.test.ts, vitest.config.ts, README.md and .gitignore into DIR. Existing files are kept. Then: npm install && npm run dev.`,
    examples: ['a2a-temporal init my-agents', 'a2a-temporal init . --name approvals'],
  },
  dev: {
    summary: "Run a project's agents locally: Temporal dev server + UI, worker and gateway, reloaded on save",
    details: `Tasks persist in .data/temporal.db (env A2A_DATA_DB). Saving a source or config file (.ts, .js, .json, ...) next to the config restarts the worker and the gateway; the dev server and its tasks stay, so waiting tasks keep waiting. With TEMPORAL_ADDRESS set it uses that server instead of starting one. Ports: PORT (8080), GRPC_PORT (8081, "off" disables), TEMPORAL_PORT (7233), TEMPORAL_UI_PORT (8233).`,
    examples: ['a2a-temporal dev', 'a2a-temporal dev ../other-project/a2a-temporal.config.ts'],
  },
  worker: {
    summary: "Run a project's agents and activities on a Temporal worker (production)",
    details: `Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS* or a TEMPORAL_PROFILE; polls the config's taskQueue (env A2A_TASK_QUEUE wins). Stops on SIGINT/SIGTERM.`,
    examples: ['a2a-temporal worker', 'TEMPORAL_ADDRESS=temporal:7233 a2a-temporal worker dist/a2a-temporal.config.js'],
  },
  gateway: {
    summary: "Serve a project's agents over A2A: JSON-RPC, HTTP+JSON and gRPC (production)",
    details: `Reads the agents for their cards only; never runs them. Environment: PORT (8080), GRPC_PORT (8081, "off" disables), HOST (0.0.0.0), A2A_PUBLIC_URL, A2A_GRPC_PUBLIC_ADDRESS, A2A_DEFAULT_AGENT, A2A_TASK_QUEUE, A2A_TRUSTED_USER_HEADER and the Temporal connection variables of \`worker\`.`,
    examples: ['a2a-temporal gateway', 'PORT=9000 GRPC_PORT=off a2a-temporal gateway'],
  },
  send: {
    summary: 'Send a message to an agent (starts a new task)',
    details: `Without --stream the call blocks until the task completes, fails or stops to ask for input, then prints the state, the status message and the artifacts. With --stream every status and artifact event is printed as it arrives (--json: one StreamResponse per line).`,
    examples: [
      'a2a-temporal send purchase-approval "Buy 3 monitors for 450 EUR"',
      `a2a-temporal send my-agent "Summarize this order" --data '{"orderId":"A-1001"}' --stream`,
    ],
  },
  chat: {
    summary: 'Interactive conversation; remembers context and pending questions across restarts',
    details: `Each line you type either answers the pending question (when the last task is waiting for input) or starts a new task in the same conversation. Responses stream live. The context ID and the pending task are kept in a state file (env A2A_CLI_STATE, default $XDG_STATE_HOME/a2a-temporal/chat.json or ~/.local/state/a2a-temporal/chat.json), keyed by gateway URL and agent, so quitting and coming back resumes the conversation.

In the conversation: /quit (or Ctrl+D) exits, /new starts a new conversation, /status shows the pending task, /answer <id> <answer> answers one of several waiting questions (by the id chat lists). Ctrl+C while a response streams detaches from it (the task keeps running).`,
    examples: ['a2a-temporal chat purchase-approval'],
  },
  tasks: {
    summary: 'List, show, answer, cancel and unblock tasks (a2a-temporal tasks COMMAND --help for details)',
    examples: [
      'a2a-temporal tasks list --state input-required',
      'a2a-temporal tasks show ID',
      'a2a-temporal tasks reply ID approve --as alice',
      'a2a-temporal tasks cancel ID',
    ],
  },
  'tasks list': {
    summary: "List tasks: every agent's, or one agent's with --agent (ListTasks; eventually consistent)",
    details:
      "Without --agent, one page of each agent the gateway serves, the latest change first, with each task's agent; MAY ANSWER shows who may answer a task that waits (the question's responders; when it names none, the task's owner, or anyone on a gateway without authentication). A \"More:\" line per agent with more tasks continues that agent's list. Lists come from Temporal visibility, which may lag a second.",
    examples: [
      'a2a-temporal tasks list --state input-required',
      'a2a-temporal tasks list --agent purchase-approval --json',
    ],
  },
  'tasks show': {
    summary: 'Show a task: state, timeline, pending question, history, artifacts (GetTask)',
    details:
      "A task ID is enough: without --agent the command asks the gateway's default agent, and the gateway names the task's own agent when it is another (so do reply and cancel).",
    examples: ['a2a-temporal tasks show 3f0c9a4e-...'],
  },
  'tasks reply': {
    summary: 'Answer a task that is waiting for input (a message with that task ID)',
    details:
      'Prints the resulting task like send does; exit code 4 when it ends failed, rejected or canceled. While the task waits on several questions, --question names the one answered (tasks show lists each with its id); without it the reply is refused and the open ids are printed.',
    examples: [
      'a2a-temporal tasks reply 3f0c9a4e-... approve --as alice',
      `a2a-temporal tasks reply ID --data '{"ok":true}'`,
      'a2a-temporal tasks reply ID approve --question ask:3.1.0',
    ],
  },
  'tasks cancel': {
    summary: 'Cancel a task; returns once its work has really stopped (CancelTask)',
    examples: ['a2a-temporal tasks cancel 3f0c9a4e-...'],
  },
  'tasks unblock': {
    summary: 'Let a task blocked by a deploy go on now: reset it to its failed workflow task',
    details:
      "A task whose workflow task keeps failing (the code deployed could not continue it) waits for Temporal's next retry, up to minutes apart. This resets its workflow to the failed workflow task: the same task ID, state, question and answers so far, on a new run that a worker takes at once; messages refused while it was blocked must be sent again. A worker does this for its task queue's tasks when it starts (those failed under other code); use this for the rest, e.g. after old workers stopped. --all: every blocked task of the task queue (A2A_TASK_QUEUE). Reaches Temporal with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS* (flags win), as setup does.",
    examples: ['a2a-temporal tasks unblock 3f0c9a4e-...', 'A2A_TASK_QUEUE=shop a2a-temporal tasks unblock --all'],
  },
  inbox: {
    summary: 'List the questions waiting for you, across agents (the approvals inbox in a terminal)',
    details:
      "Asks the gateway who you are (A2A_API_KEY or A2A_TOKEN, as every command) and lists the questions you may answer: those naming you or one of your groups, and your own tasks' that name nobody. Without authentication (dev) every waiting question. The same list as the web inbox at <gateway>/inbox/; answer with tasks reply.",
    examples: [
      'a2a-temporal inbox',
      'a2a-temporal inbox --agent purchase-approval --sort age',
      'a2a-temporal inbox --json',
    ],
  },
  'check-deploy': {
    summary: "Replay the tasks under way on the project's code as it is now: would a deploy break them?",
    details: `Reads the histories of the namespace's open tasks of the config's agents on the config's task queue (env A2A_TASK_QUEUE wins), those waiting for input first, and replays each on the new code's workflow bundle, as a worker of it would when the task next moves. Prints which agents' tasks would break and how many, the first diverging call of each in words (the activity, question or ctx.patched check that differs), and how to guard the change (ctx.patched) or run it with Worker Versioning; exits 5 when any would break, so CI can refuse the deploy. Only reads: nothing in Temporal changes. Connects like \`worker\` (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*). With --histories it reads saved histories instead (temporal workflow show --output json, the Temporal UI's download, or saveTaskHistory from a2a-temporal/testing) and needs no server.`,
    examples: [
      'a2a-temporal check-deploy',
      'TEMPORAL_ADDRESS=temporal.internal:7233 TEMPORAL_NAMESPACE=prod a2a-temporal check-deploy --sample 200',
      'a2a-temporal check-deploy --histories test/histories',
    ],
  },
  config: {
    summary: 'Print the settings a worker, gateway or dev stack here would run with, and where each comes from',
    details: `Every environment variable the package reads, grouped by feature, with its effective value and its source: env (the environment), project config (the config's taskQueue, defaultAgent, workerDeployment, approvals.directory) or default. Secrets are masked. A wrong value exits 1 naming the variable. docs/configuration.md describes each.`,
    examples: ['a2a-temporal config', 'A2A_AUTH=jwt a2a-temporal config --json'],
  },
  setup: {
    summary: 'Register the A2A search attributes on a Temporal namespace (idempotent)',
    details: `Adds ${SEARCH_ATTRIBUTES_TEXT} where missing. Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS* (flags win). The dev stack registers them by itself; on Temporal Cloud add them in the Cloud UI or with tcld (the operator API is not open to namespace users there).`,
    examples: ['a2a-temporal setup --address temporal.internal:7233 --namespace prod'],
  },
  schedules: {
    summary:
      "List, pause, resume and trigger the config's scheduled tasks (a2a-temporal schedules COMMAND --help for details)",
    details:
      "The config's `schedules` are Temporal Schedules, made and kept in line with the config by the worker when it starts; each run is an ordinary task of its agent. Connects with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS* (flags win), as setup does.",
    examples: ['a2a-temporal schedules list', 'a2a-temporal schedules pause daily-report --note "holiday"'],
  },
  'schedules list': {
    summary: 'List the scheduled tasks a2a-temporal manages in the namespace (eventually consistent)',
    details:
      'One row per schedule: its id, task queue, agent, whether it is paused (and why), its next run and the task its last run started (a2a-temporal tasks show TASK). Schedules not made from an a2a-temporal config are not listed.',
    examples: ['a2a-temporal schedules list', 'a2a-temporal schedules list --json'],
  },
  'schedules pause': {
    summary: 'Pause a scheduled task: no runs until it is resumed',
    details: 'Runs under way carry on. A worker restart keeps the pause (the config does not say paused or not).',
    examples: ['a2a-temporal schedules pause daily-report --note "until the migration is done"'],
  },
  'schedules resume': {
    summary: 'Resume a paused scheduled task',
    examples: ['a2a-temporal schedules resume daily-report'],
  },
  receipts: {
    summary: 'Check signed decision receipts (a2a-temporal receipts COMMAND --help for details)',
    examples: ['a2a-temporal receipts verify receipt.jws --jwks receipts-jwks.json'],
  },
  'receipts verify': {
    summary: "Check a decision receipt's signature and print what it says",
    details:
      "FILE holds the compact JWS of a task's decision-receipt artifact (A2A_RECEIPT_SIGNING_KEY on the workers signs them). With --jwks FILE the check is offline; with --jwks URL, or without it, the keys come from the gateway that serves them. Prints the receipt's fields and exits 0 when the signature and the payload check out; exits 6 with the reason when not (one byte changed is enough).",
    examples: [
      'a2a-temporal receipts verify receipt.jws --jwks receipts-jwks.json',
      'a2a-temporal receipts verify receipt.jws --url https://agents.example.com',
    ],
  },
  audit: {
    summary:
      'Export and check the record of questions, notices, answers and decisions (a2a-temporal audit COMMAND --help)',
    examples: [
      'a2a-temporal audit export --since 2026-11-01 --until 2026-12-01 --out november.jsonl',
      'a2a-temporal audit verify november.jsonl',
    ],
  },
  'audit export': {
    summary: 'Write every question, notice, answer and decision (with receipts) between two times, from Temporal',
    details:
      "Lists the task workflows open at some point of the window (Temporal visibility), reads each task's history page by page (continue-as-new runs included) and writes one JSON record per line: what happened, when, who, and by which channel. Each task's lines are chained with SHA-256 (`prev`: the hash of the task's previous line) and the file ends with a line that sums up the chains, so audit verify detects a line removed or edited. Reaches Temporal with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY and TEMPORAL_TLS* (flags win), as setup does; only reads.",
    examples: [
      'a2a-temporal audit export --since 2026-11-01 --until 2026-12-01 --out november.jsonl',
      'a2a-temporal audit export --since 2026-11-27T00:00Z --agent purchase-approval',
    ],
  },
  'audit verify': {
    summary: "Check an audit export's hash chains: no line removed, added or edited",
    details: 'Exits 0 when every chain and the closing line check out; 6 with the first line that does not.',
    examples: ['a2a-temporal audit verify november.jsonl'],
  },
  'schedules trigger': {
    summary: 'Run a scheduled task now, once (its overlap policy applies)',
    details: 'Prints the ID of the task the run started, once Temporal has started it.',
    examples: ['a2a-temporal schedules trigger daily-report'],
  },
} satisfies Record<string, HelpText>;
