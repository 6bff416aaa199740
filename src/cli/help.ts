/** Help texts, rendered from the command table in spec.ts. */
import { UsageError } from './errors.js';
import { COMMANDS, EXIT_CODES_HELP, type CommandSpec } from './spec.js';

const ENVIRONMENT = [
  'Environment:',
  '  A2A_URL        gateway base URL (agents are served at URL/agents/NAME/)',
  '  A2A_AGENT      default agent of the tasks commands',
  '  A2A_TRANSPORT  jsonrpc (default) or rest',
  '  A2A_RESPONDER  default --as',
  '  A2A_API_KEY    API key for a gateway with authentication (sent as X-API-Key)',
  '  A2A_TOKEN      JWT for a gateway with authentication (sent as Authorization: Bearer)',
  '  A2A_CLI_STATE  chat state file',
  '  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*  for setup',
];

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.id.length));
  return [
    'a2a-temporal: run A2A agents durably on Temporal (init, dev, worker, gateway) and talk A2A to them.',
    '',
    'Usage: a2a-temporal COMMAND [options]      (a2a-temporal COMMAND --help for details)',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.id.padEnd(width)}  ${command.summary}`),
    '',
    ...ENVIRONMENT,
    '',
    ...EXIT_CODES_HELP,
    '',
  ].join('\n');
}

export function tasksHelp(): string {
  const tasks = COMMANDS.filter((command) => command.id.startsWith('tasks '));
  return [
    'Usage: a2a-temporal tasks SUBCOMMAND [options]',
    '',
    ...tasks.map((command) => `  a2a-temporal ${command.usage}\n      ${command.summary}`),
    '',
    ...EXIT_CODES_HELP,
    '',
  ].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const flag = `${option.short ? `-${option.short}, ` : '    '}--${name}${option.value ? ` ${option.value}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    `Usage: a2a-temporal ${spec.usage}`,
    '',
    spec.summary + '.',
    ...(spec.details ? ['', ...spec.details] : []),
    '',
    'Options:',
    ...rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`),
    '',
    'Examples:',
    ...spec.examples.map((example) => `  ${example}`),
    '',
    ...EXIT_CODES_HELP,
    '',
  ].join('\n');
}

/** The help for `a2a-temporal help TOPIC` / `COMMAND --help`. */
export function helpFor(topic: string | undefined): string {
  if (topic === undefined) return mainHelp();
  if (topic === 'tasks') return tasksHelp();
  const spec = COMMANDS.find((command) => command.id === topic);
  if (!spec) throw new UsageError(`No help for "${topic}". Try: a2a-temporal --help`);
  return commandHelp(spec);
}
