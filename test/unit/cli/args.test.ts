import { CLI_SETTINGS } from '../../../src/config/settings/cli.js';
import { describe, expect, it, vi } from 'vitest';
import { parseCommandLine, parseState, parseTransport } from '../../../src/cli/args.js';
import type { Command } from '../../../src/cli/command.js';
import { ExitCode, UsageError } from '../../../src/cli/errors.js';
import { helpFor } from '../../../src/cli/help.js';
import { COMMANDS } from '../../../src/cli/spec.js';
import { SEARCH_ATTRIBUTE_DEFINITIONS, searchAttributeTypeName } from '../../../src/protocol/search-attributes.js';

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(ExitCode.Usage);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

function parse<K extends Command['kind']>(kind: K, argv: string[], env: NodeJS.ProcessEnv = {}) {
  const command = parseCommandLine(argv, env);
  expect(command.kind).toBe(kind);
  return command as Extract<Command, { kind: K }>;
}

describe('help', () => {
  it.each([
    [[], undefined],
    [['--help'], undefined],
    [['-h'], undefined],
    [['help', 'send'], 'send'],
    [['help', 'tasks', 'list'], 'tasks list'],
    [['send', '--help'], 'send'],
    [['tasks'], 'tasks'],
    [['tasks', '--help'], 'tasks'],
    [['tasks', 'show', 'x', '-h'], 'tasks show'],
    [['tasks', 'help', 'reply'], 'tasks reply'],
    [['setup', '--help'], 'setup'],
  ])('%j asks for help on %s', (argv, topic) => {
    expect(parseCommandLine(argv)).toEqual({ kind: 'help', ...(topic && { topic }) });
  });
});

describe('help texts', () => {
  /** The help as one line: how commander wraps it depends on the terminal's width. */
  const help = (topic?: string) => helpFor(topic).replace(/\s+/g, ' ');

  it('say what every option does, with its environment variable, default and choices', () => {
    expect(help('setup')).toContain('--json Machine-readable JSON on stdout: address, namespace, attributes');
    expect(help('tasks cancel')).toContain(
      '--as <NAME> Who cancels, recorded in the audit timeline (env: A2A_RESPONDER)',
    );
    expect(help('send')).toContain('--url <URL> Gateway base URL (default: "http://127.0.0.1:8080", env: A2A_URL)');
    expect(help('tasks list')).toContain('(choices: "submitted", "working", "input-required"');
    expect(help('send')).toContain('Examples: a2a-temporal send purchase-approval');
  });

  it("list the CLI's environment as its settings declare it, each with its default", () => {
    const text = help();
    expect(text).toContain('Environment: A2A_URL The gateway (--url). (default: http://127.0.0.1:8080)');
    for (const [name, { description }] of Object.entries(CLI_SETTINGS)) {
      expect(text).toContain(`${name} ${description.replace(/`/g, '')}`);
    }
  });

  it('name every search attribute setup registers, with its type', () => {
    const text = help('setup');
    for (const { name, type } of SEARCH_ATTRIBUTE_DEFINITIONS) {
      expect(text).toContain(`${name} (${searchAttributeTypeName(type)})`);
    }
  });

  it('end a summary that asks a question without a stray full stop', () => {
    expect(help('check-deploy')).toContain('would a deploy break them? Reads the histories');
    for (const command of COMMANDS) expect(help(command.id), command.id).not.toContain('?.');
  });
});

describe('send', () => {
  it('uses the default gateway and JSON-RPC', () => {
    const command = parse('send', ['send', 'echo', 'hello there']);
    expect(command).toEqual({
      kind: 'send',
      gateway: { url: 'http://127.0.0.1:8080', transport: 'JSONRPC' },
      agent: 'echo',
      content: { text: 'hello there' },
      stream: false,
      noWait: false,
      json: false,
    });
  });

  it('takes the gateway from A2A_URL, and --url over it, without a trailing slash', () => {
    expect(parse('send', ['send', 'echo', 'hi'], { A2A_URL: 'http://gw:9000/' }).gateway.url).toBe('http://gw:9000');
    const command = parse('send', ['send', 'echo', 'hi', '--url', 'https://a2a.example.com/base/'], {
      A2A_URL: 'http://gw',
    });
    expect(command.gateway.url).toBe('https://a2a.example.com/base');
  });

  it('parses --data, with or without text, and the flags', () => {
    const command = parse('send', [
      'send',
      'long-report',
      '--data',
      '{"sections":3}',
      '--stream',
      '--json',
      '--as',
      'ann',
    ]);
    expect(command.content).toEqual({ data: { sections: 3 } });
    expect(command).toMatchObject({ stream: true, json: true, responder: 'ann' });
    expect(parse('send', ['send', 'a', 'text', '--data', '[1]']).content).toEqual({ text: 'text', data: [1] });
  });

  it('authenticates with A2A_API_KEY and A2A_TOKEN', () => {
    expect(parse('send', ['send', 'a', 'x'], { A2A_API_KEY: 'k', A2A_TOKEN: 't' }).gateway.credentials).toEqual({
      'x-api-key': 'k',
      authorization: 'Bearer t',
    });
    expect(parse('send', ['send', 'a', 'x'], { A2A_API_KEY: '' }).gateway).not.toHaveProperty('credentials');
  });

  it('takes the responder from A2A_RESPONDER', () => {
    expect(parse('send', ['send', 'a', 'x'], { A2A_RESPONDER: 'ops' }).responder).toBe('ops');
  });

  it('selects the REST transport by flag or environment', () => {
    expect(parse('send', ['send', 'a', 'x', '--transport', 'rest']).gateway.transport).toBe('HTTP+JSON');
    expect(parse('send', ['send', 'a', 'x'], { A2A_TRANSPORT: 'HTTP+JSON' }).gateway.transport).toBe('HTTP+JSON');
    expect(usageError(() => parseTransport('grpc')).message).toMatch(/jsonrpc or rest/);
  });

  it.each([
    [['send'], /Missing required argument 'AGENT'/],
    [['send', 'echo'], /Nothing to send/],
    [['send', 'echo', 'a', 'b'], /Unexpected argument\(s\): b/],
    [['send', 'echo', 'x', '--data', '{nope'], /--data is not valid JSON/],
    [['send', 'echo', 'x', '--bogus'], /Unknown option '--bogus'.*send --help/],
    [['send', 'echo', 'x', '--stream', '--no-wait'], /'--no-wait' cannot be used with option '--stream'/],
    [['send', 'echo', 'x', '--url', 'not a url'], /Invalid gateway URL/],
    [['send', 'echo', 'x', '--url', 'ftp://host'], /only http and https/],
    [['send', ' ', 'x'], /AGENT must not be empty/],
  ])('rejects %j', (argv, message) => {
    expect(usageError(() => parseCommandLine(argv)).message).toMatch(message);
  });
});

describe('tasks', () => {
  it("lists with filters; the agent defaults to A2A_AGENT, then none (the gateway's default agent)", () => {
    const argv = [
      'tasks',
      'list',
      '--state',
      'input-required',
      '--context',
      'c1',
      '--page-size',
      '10',
      '--page-token',
      't',
    ];
    expect(parse('tasks list', argv).agent).toBeUndefined();
    expect(parse('tasks list', argv)).toMatchObject({
      state: 'input-required',
      contextId: 'c1',
      pageSize: 10,
      pageToken: 't',
    });
    expect(parse('tasks list', ['tasks', 'list'], { A2A_AGENT: 'echo' }).agent).toBe('echo');
    expect(parse('tasks list', ['tasks', 'list', '--agent', 'x'], { A2A_AGENT: 'echo' }).agent).toBe('x');
  });

  it.each(['0', '101', '1.5', 'ten'])('rejects --page-size %s', (size) => {
    expect(usageError(() => parseCommandLine(['tasks', 'list', '--page-size', size])).message).toMatch(/1-100/);
  });

  it('shows, replies and cancels by ID', () => {
    expect(parse('tasks show', ['tasks', 'show', 't1', '--history-length', '0'])).toMatchObject({
      id: 't1',
      historyLength: 0,
    });
    expect(parse('tasks reply', ['tasks', 'reply', 't1', 'approve', '--as', 'bob'])).toMatchObject({
      id: 't1',
      content: { text: 'approve' },
      responder: 'bob',
      stream: false,
    });
    expect(parse('tasks reply', ['tasks', 'reply', 't1', '--data', '{"ok":true}']).content).toEqual({
      data: { ok: true },
    });
    expect(parse('tasks cancel', ['tasks', 'cancel', 't1', '--json'])).toMatchObject({ id: 't1', json: true });
  });

  it.each([
    [['tasks', 'show'], /Missing required argument 'ID'/],
    [['tasks', 'reply', 't1'], /Nothing to send/],
    [['tasks', 'frobnicate'], /Unknown command "tasks frobnicate"/],
  ])('rejects %j', (argv, message) => {
    expect(usageError(() => parseCommandLine(argv)).message).toMatch(message);
  });
});

describe('parseState', () => {
  it.each([
    ['input-required', 'input-required'],
    ['INPUT_REQUIRED', 'input-required'],
    ['TASK_STATE_AUTH_REQUIRED', 'auth-required'],
    ['cancelled', 'canceled'],
    [' completed ', 'completed'],
  ])('%s is %s', (raw, state) => {
    expect(parseState(raw)).toBe(state);
  });

  it('lists the states when it does not know one', () => {
    expect(usageError(() => parseState('done')).message).toMatch(/submitted, working, input-required/);
  });
});

describe('setup and unknown commands', () => {
  it('parses setup', () => {
    expect(parseCommandLine(['setup', '--namespace', 'prod', '--address', 'h:7233', '--json'])).toEqual({
      kind: 'setup',
      json: true,
      namespace: 'prod',
      address: 'h:7233',
    });
  });

  it('rejects unknown commands', () => {
    expect(usageError(() => parseCommandLine(['deploy'])).message).toMatch(/Unknown command "deploy"/);
  });
});

describe('project commands', () => {
  it('init takes a folder (default: here) and a package name', () => {
    expect(parse('init', ['init'])).toEqual({ kind: 'init', dir: '.' });
    expect(parse('init', ['init', 'my-agents', '--name', 'approvals'])).toEqual({
      kind: 'init',
      dir: 'my-agents',
      name: 'approvals',
    });
  });

  it('takes an empty value for none', () => {
    expect(parse('init', ['init', '', '--name', ''])).toEqual({ kind: 'init', dir: '.' });
    const list = parse('tasks list', ['tasks', 'list', '--agent', '', '--page-token', '']);
    expect(list).not.toHaveProperty('agent');
    expect(list).not.toHaveProperty('pageToken');
  });

  it.each(['dev', 'worker', 'gateway'] as const)('%s takes an optional config', (kind) => {
    expect(parse(kind, [kind])).toEqual({ kind });
    expect(parse(kind, [kind, 'examples/a2a-temporal.config.ts'])).toEqual({
      kind,
      config: 'examples/a2a-temporal.config.ts',
    });
    expect(usageError(() => parseCommandLine([kind, 'a', 'b'])).message).toMatch(/Unexpected argument/);
  });
});

describe('usage errors', () => {
  it('name an unknown option with balanced quotes and say where to look', () => {
    expect(usageError(() => parseCommandLine(['send', 'echo', 'hi', '--foo'])).message).toBe(
      "Unknown option '--foo'. See: a2a-temporal send --help",
    );
  });

  it('are one line, suggestion included', () => {
    expect(usageError(() => parseCommandLine(['tasks', 'list', '--jsn'])).message).toBe(
      "Unknown option '--jsn' (Did you mean --json?). See: a2a-temporal tasks list --help",
    );
  });

  it.each([
    [['help', 'deploy'], /Unknown command "deploy"/],
    [['deploy', '--help'], /Unknown command "deploy"/],
    [['tasks', 'help', 'nope'], /Unknown command "tasks nope"/],
  ])('%j asks for help on no command', (argv, message) => {
    expect(usageError(() => parseCommandLine(argv)).message).toMatch(message);
  });

  it('point to help as it can be pasted: through npx when started by npx', () => {
    const npx = { npm_command: 'exec' };
    expect(usageError(() => parseCommandLine(['send', 'echo', 'hi', '--foo'], npx)).message).toBe(
      "Unknown option '--foo'. See: npx a2a-temporal send --help",
    );
    expect(usageError(() => parseCommandLine(['tasks', 'lst'], npx)).message).toMatch(
      /Try: npx a2a-temporal tasks --help$/,
    );
    expect(usageError(() => parseCommandLine(['send', 'echo'], npx)).message).toMatch(
      /See: npx a2a-temporal send --help$/,
    );
  });

  it('suggest the command meant', () => {
    expect(usageError(() => parseCommandLine(['tasks', 'lst'])).message).toBe(
      'Unknown command "tasks lst" (Did you mean list?). Try: a2a-temporal tasks --help',
    );
  });

  it('read the environment they are given, not the process environment', () => {
    vi.stubEnv('A2A_URL', 'http://elsewhere:1');
    try {
      expect(parse('send', ['send', 'echo', 'hi']).gateway.url).toBe('http://127.0.0.1:8080');
      expect(parse('send', ['send', 'echo', 'hi'], { A2A_URL: '' }).gateway.url).toBe('http://127.0.0.1:8080');
      expect(process.env.A2A_URL).toBe('http://elsewhere:1');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
