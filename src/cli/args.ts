/**
 * Command-line parsing: argv in, one typed command out, or a UsageError (exit code 1) that says
 * what was wrong. Pure apart from reading the environment it is given, so it is unit-tested.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { TASK_STATES, type TaskStateName } from '../protocol/states.js';
import { UsageError } from './errors.js';
import { commandSpec, DEFAULT_URL, type CommandId } from './spec.js';

export type Transport = 'JSONRPC' | 'HTTP+JSON';

export interface Gateway {
  /** Base URL without a trailing slash. */
  url: string;
  transport: Transport;
  /** Headers that authenticate the caller (from A2A_API_KEY or A2A_TOKEN). */
  credentials?: Record<string, string>;
}

/** Text and/or structured content of an outgoing message. */
export interface Content {
  text?: string;
  data?: unknown;
}

export type Command =
  | { kind: 'help'; topic?: string }
  | { kind: 'init'; dir: string; name?: string }
  | { kind: 'dev' | 'worker' | 'gateway'; config?: string }
  | {
      kind: 'send';
      gateway: Gateway;
      agent: string;
      content: Content;
      stream: boolean;
      /** returnImmediately: answer with the submitted task instead of waiting for it to settle. */
      noWait: boolean;
      json: boolean;
      responder?: string;
    }
  | { kind: 'chat'; gateway: Gateway; agent: string; fresh: boolean; responder?: string }
  | {
      kind: 'tasks list';
      gateway: Gateway;
      /** Absent: the gateway's default agent (served at its root). */
      agent?: string;
      json: boolean;
      state?: TaskStateName;
      contextId?: string;
      pageSize?: number;
      pageToken?: string;
    }
  | { kind: 'tasks show'; gateway: Gateway; agent?: string; json: boolean; id: string; historyLength?: number }
  | {
      kind: 'tasks reply';
      gateway: Gateway;
      agent?: string;
      json: boolean;
      id: string;
      content: Content;
      stream: boolean;
      responder?: string;
    }
  | { kind: 'tasks cancel'; gateway: Gateway; agent?: string; json: boolean; id: string; responder?: string }
  | { kind: 'setup'; json: boolean; namespace?: string; address?: string };

type Values = Record<string, string | boolean | undefined>;

export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { kind: 'help' };
  if (first === 'help') return { kind: 'help', ...(rest[0] && { topic: rest.join(' ') }) };
  if (first === 'tasks') {
    const [sub, ...tail] = rest;
    if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help')
      return { kind: 'help', topic: 'tasks' };
    const id = `tasks ${sub}`;
    if (!isCommandId(id)) throw new UsageError(`Unknown command "tasks ${sub}". Try: a2a-temporal tasks --help`);
    return parseCommand(id, tail, env);
  }
  if (isTopLevelCommand(first)) return parseCommand(first, rest, env);
  throw new UsageError(`Unknown command "${first}". Try: a2a-temporal --help`);
}

function parseCommand(id: CommandId, args: readonly string[], env: NodeJS.ProcessEnv): Command {
  const { values, positionals } = parseOptions(id, args);
  if (values.help) return { kind: 'help', topic: id };
  const json = values.json === true;
  const responder = optionalString(values.as) ?? optionalString(env.A2A_RESPONDER);
  const who = responder ? { responder } : {};
  switch (id) {
    case 'init': {
      const [dir] = expectPositionals(id, positionals, [], ['DIR']);
      const name = optionalString(values.name);
      return { kind: id, dir: dir ?? '.', ...(name && { name }) };
    }
    case 'dev':
    case 'worker':
    case 'gateway': {
      const [config] = expectPositionals(id, positionals, [], ['CONFIG']);
      return { kind: id, ...(config && { config }) };
    }
    case 'send': {
      const [agent, text] = expectPositionals(id, positionals, ['AGENT'], ['TEXT']);
      const content = parseContent(id, text, values.data);
      const stream = values.stream === true;
      const noWait = values['no-wait'] === true;
      if (stream && noWait) throw new UsageError('--stream and --no-wait exclude each other');
      return { kind: 'send', gateway: parseGateway(values, env), agent: agent!, content, stream, noWait, json, ...who };
    }
    case 'chat': {
      const [agent] = expectPositionals(id, positionals, ['AGENT'], []);
      return { kind: 'chat', gateway: parseGateway(values, env), agent: agent!, fresh: values.new === true, ...who };
    }
    case 'tasks list': {
      expectPositionals(id, positionals, [], []);
      const state = optionalString(values.state);
      const contextId = optionalString(values.context);
      const pageSize = optionalString(values['page-size']);
      const pageToken = optionalString(values['page-token']);
      return {
        kind: id,
        gateway: parseGateway(values, env),
        ...taskAgent(values, env),
        json,
        ...(state && { state: parseState(state) }),
        ...(contextId && { contextId }),
        ...(pageSize && { pageSize: parseInteger('--page-size', pageSize, 1, 100) }),
        ...(pageToken && { pageToken }),
      };
    }
    case 'tasks show': {
      const [taskId] = expectPositionals(id, positionals, ['ID'], []);
      const history = optionalString(values['history-length']);
      return {
        kind: id,
        gateway: parseGateway(values, env),
        ...taskAgent(values, env),
        json,
        id: taskId!,
        ...(history && { historyLength: parseInteger('--history-length', history, 0, Number.MAX_SAFE_INTEGER) }),
      };
    }
    case 'tasks reply': {
      const [taskId, text] = expectPositionals(id, positionals, ['ID'], ['TEXT']);
      const content = parseContent(id, text, values.data);
      const gateway = parseGateway(values, env);
      return {
        kind: id,
        gateway,
        ...taskAgent(values, env),
        json,
        id: taskId!,
        content,
        stream: values.stream === true,
        ...who,
      };
    }
    case 'tasks cancel': {
      const [taskId] = expectPositionals(id, positionals, ['ID'], []);
      return { kind: id, gateway: parseGateway(values, env), ...taskAgent(values, env), json, id: taskId!, ...who };
    }
    case 'setup': {
      expectPositionals(id, positionals, [], []);
      const namespace = optionalString(values.namespace);
      const address = optionalString(values.address);
      return { kind: 'setup', json, ...(namespace && { namespace }), ...(address && { address }) };
    }
  }
}

function parseOptions(id: CommandId, args: readonly string[]): { values: Values; positionals: string[] } {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, option] of Object.entries(commandSpec(id).options)) {
    options[name] = { type: option.type, ...(option.short && { short: option.short }) };
  }
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    // parseArgs messages are precise ("Unknown option '--foo'") but its advice on "--" for unknown
    // options has unbalanced quotes: keep the first sentence, add where to look next.
    const message = error instanceof Error ? error.message : String(error);
    const unknown = /^Unknown option '[^']+'/.exec(message)?.[0];
    throw new UsageError(`${unknown ?? message.replace(/\.$/, '')}. See: a2a-temporal ${id} --help`);
  }
}

/** Checks the positional count; returns required then optional values in order. */
function expectPositionals(
  id: CommandId,
  positionals: readonly string[],
  required: readonly string[],
  optional: readonly string[],
): readonly (string | undefined)[] {
  if (positionals.length < required.length) {
    throw new UsageError(
      `Missing ${required.slice(positionals.length).join(' ')}. Usage: a2a-temporal ${commandSpec(id).usage}`,
    );
  }
  if (positionals.length > required.length + optional.length) {
    const extra = positionals.slice(required.length + optional.length).join(' ');
    throw new UsageError(
      `Unexpected argument(s): ${extra} (quote text with spaces). Usage: a2a-temporal ${commandSpec(id).usage}`,
    );
  }
  for (const [index, value] of positionals.entries()) {
    if (index < required.length && value.trim() === '') throw new UsageError(`${required[index]} must not be empty`);
  }
  return positionals;
}

function parseContent(id: CommandId, text: string | undefined, data: string | boolean | undefined): Content {
  const content: Content = {};
  if (text !== undefined && text !== '') content.text = text;
  if (typeof data === 'string') content.data = parseJson('--data', data);
  if (content.text === undefined && content.data === undefined) {
    throw new UsageError(`Nothing to send: give TEXT and/or --data JSON. Usage: a2a-temporal ${commandSpec(id).usage}`);
  }
  return content;
}

export function parseJson(option: string, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    throw new UsageError(`${option} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

export function parseGateway(values: Values, env: NodeJS.ProcessEnv): Gateway {
  const raw = optionalString(values.url) ?? optionalString(env.A2A_URL) ?? DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`Invalid gateway URL "${raw}" (expected e.g. ${DEFAULT_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`Invalid gateway URL "${raw}": only http and https are supported`);
  }
  const transport = parseTransport(optionalString(values.transport) ?? optionalString(env.A2A_TRANSPORT) ?? 'jsonrpc');
  const apiKey = optionalString(env.A2A_API_KEY);
  const token = optionalString(env.A2A_TOKEN);
  const credentials = {
    ...(apiKey && { 'x-api-key': apiKey }),
    ...(token && { authorization: `Bearer ${token}` }),
  };
  return { url: normalizeUrl(url.href), transport, ...(Object.keys(credentials).length > 0 && { credentials }) };
}

/** One spelling per gateway, so the chat state file keys do not depend on a trailing slash. */
export function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, '');
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

export function parseInteger(option: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}-${max}`;
    throw new UsageError(`${option} must be an integer ${range} (got "${raw}")`);
  }
  return value;
}

/** --agent, else A2A_AGENT, else none: the gateway's default agent answers. */
function taskAgent(values: Values, env: NodeJS.ProcessEnv): { agent?: string } {
  const agent = optionalString(values.agent) ?? optionalString(env.A2A_AGENT);
  return agent ? { agent } : {};
}

function optionalString(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const TOP_LEVEL_COMMANDS = ['init', 'dev', 'worker', 'gateway', 'send', 'chat', 'setup'] as const;

function isTopLevelCommand(name: string): name is (typeof TOP_LEVEL_COMMANDS)[number] {
  return (TOP_LEVEL_COMMANDS as readonly string[]).includes(name);
}

function isCommandId(id: string): id is CommandId {
  return id === 'tasks list' || id === 'tasks show' || id === 'tasks reply' || id === 'tasks cancel';
}
