/**
 * LLM agents with tools from MCP servers: real MCP servers (the official SDK's McpServer over
 * Streamable HTTP in this process, and over stdio in a process the worker starts), the local fake
 * OpenAI-compatible model server and the real Temporal dev server. Tools without approval run at
 * once, tools with approval (by name, by predicate) wait for a human's answer; the tool list is
 * fixed when the task starts, across a worker restart and a server that changes its tools; a
 * worker stopped after an MCP call succeeded does not make the call again; the server's bearer
 * token comes from the worker's environment and is nowhere in the task's history.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnections } from '../../../src/llm/mcp-connections.js';
import { bundleAgents } from '../../../src/worker/agents-bundle.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { startMcpHttpServer, type FakeMcpHttpServer } from '../../support/mcp-http-server.js';
import {
  cancelTask,
  finalTask,
  historyText,
  refusal,
  reply,
  startTask,
  stateOf,
  waitForState,
} from '../../support/tasks.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { quietLogger, startTestWorker, testClient, type TestWorker } from '../../support/worker.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TOKEN_ENV = 'A2A_TEST_MCP_TOKEN';
const CALLS_FILE_ENV = 'A2A_TEST_NOTES_CALLS_FILE';
const SECRET = `mcp-secret-${randomUUID()}`;
const temp = useTempDirs();

/** The agents of these tests, in a module of their own: the MCP server's URL is only known now. */
function mcpAgents(url: string): string {
  return `import { defineLlmAgent } from '${ROOT}src/index.ts';

const skills = [{ id: 'mcp', name: 'MCP', description: 'Tools from MCP servers', tags: ['test'] }];

export default [
  defineLlmAgent({
    name: 'test-llm-mcp',
    description: 'Orders and issues from an MCP server over HTTP',
    skills,
    instructions: 'You look orders up and file issues.',
    model: 'fake-model',
    mcp: {
      shop: {
        url: '${url}',
        bearerTokenEnv: '${TOKEN_ENV}',
        approval: { create_issue: 'always' },
        approvers: ['alice'],
        activityOptions: { retry: { initialInterval: '200 milliseconds' } },
      },
    },
  }),
  defineLlmAgent({
    name: 'test-llm-mcp-reports',
    description: 'One slow tool of the server, under a prefix of its own',
    skills,
    instructions: 'You build reports.',
    model: 'fake-model',
    askUser: false,
    mcp: { shop: { url: '${url}', bearerTokenEnv: '${TOKEN_ENV}', tools: ['slow_report'], toolPrefix: 'reports_' } },
  }),
  defineLlmAgent({
    name: 'test-llm-mcp-stdio',
    description: 'Notes from an MCP server the worker starts',
    skills,
    instructions: 'You keep notes.',
    model: 'fake-model',
    mcp: {
      notes: {
        command: 'node',
        args: ['--import', 'tsx', 'test/support/mcp-stdio-server.ts'],
        cwd: '${ROOT}',
        env: { NOTES_CALLS_FILE: { env: '${CALLS_FILE_ENV}' } },
        approval: (tool, args) => (tool === 'delete_notes' ? \`deletes every note (\${String(args.reason)})\` : false),
      },
    },
  }),
  defineLlmAgent({
    name: 'test-llm-mcp-no-token',
    description: 'Names a token the worker lacks',
    skills,
    instructions: 'You look orders up.',
    model: 'fake-model',
    mcp: { shop: { url: '${url}', bearerTokenEnv: 'A2A_TEST_MCP_TOKEN_NOT_SET' } },
  }),
];
`;
}

let model: FakeModelServer;
let shop: FakeMcpHttpServer;
let agents: string;
let bundle: WorkflowBundleWithSourceMap;
let client: Client;
let worker: TestWorker;
let callsFile: string;

/** A worker of these tests' agents; the file's own, or one a test stops. */
function mcpWorker(taskQueue?: string, shutdownGraceTime?: string): Promise<TestWorker> {
  return startTestWorker(taskQueue, {
    agents,
    workflowBundle: bundle,
    model: { baseURL: model.url, model: 'fake-model' },
    ...(shutdownGraceTime && { shutdownGraceTime }),
  });
}

beforeAll(async () => {
  process.env[TOKEN_ENV] = SECRET;
  const dir = temp.make('a2a-mcp-');
  callsFile = join(dir, 'notes-calls.jsonl');
  writeFileSync(callsFile, '');
  process.env[CALLS_FILE_ENV] = callsFile;
  [model, shop] = await Promise.all([startFakeModelServer(), startMcpHttpServer(SECRET)]);
  agents = join(dir, 'agents.ts');
  writeFileSync(agents, mcpAgents(shop.url));
  bundle = await bundleAgents(agents, { logger: quietLogger });
  worker = await mcpWorker();
  client = await testClient();
});

afterAll(async () => {
  await worker?.shutdown();
  await client?.connection.close();
  await Promise.all([model?.close(), shop?.close()]);
});

const token = () => `t${randomUUID().slice(0, 8)}`;
const callsOf = (t: string) => shop.calls.filter((call) => JSON.stringify(call.args).includes(t));
const count = (method: string) => shop.methods.filter((m) => m === method).length;
const toolNames = (request: { body: any }) => (request.body.tools ?? []).map((tool: any) => tool.function.name);

/** Looks the order up (no approval), then files an issue (approval), then answers. */
function lookupThenIssue(t: string) {
  model.script(
    { match: t, toolCalls: [{ name: 'shop_lookup_order', arguments: { orderId: t } }] },
    { match: `Order ${t}`, toolCalls: [{ name: 'shop_create_issue', arguments: { title: `Late ${t}` } }] },
    { match: `: Late ${t}`, text: `Filed an issue about ${t}.` },
  );
}

describe("an MCP server's tools", () => {
  it('are listed once; one without approval runs at once, one with approval after "approve", once each', async () => {
    const t = token();
    lookupThenIssue(t);
    const listsBefore = count('tools/list');
    const { handle } = await startTask(client, worker.taskQueue, 'test-llm-mcp', { text: `Is ${t} late?` });

    const waiting = await waitForState(handle, 'input-required');
    const question = (waiting.metadata as any).pendingQuestion;
    expect(question.details).toMatchObject({
      tool: 'shop_create_issue',
      arguments: { title: `Late ${t}` },
      reason: 'this tool always needs approval',
    });
    expect(question.responders).toEqual(['alice']);
    expect(callsOf(t)).toEqual([{ tool: 'lookup_order', args: { orderId: t } }]);

    await reply(handle, { text: 'approve', responder: 'alice' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe(`Filed an issue about ${t}.`);
    expect(callsOf(t).map((call) => call.tool)).toEqual(['lookup_order', 'create_issue']);
    expect(count('tools/list') - listsBefore).toBe(1);

    // The model saw the server's tools under their names, with the server's schemas, and their results.
    const requests = model.requestsMatching(t);
    expect(requests).toHaveLength(3);
    expect(toolNames(requests[0]!)).toEqual(['shop_create_issue', 'shop_slow_report', 'shop_lookup_order', 'ask_user']);
    const lookup = requests[0]!.body.tools!.find((tool) => tool.function.name === 'shop_lookup_order');
    expect(lookup!.function.parameters).toMatchObject({ type: 'object', required: ['orderId'] });
    expect(JSON.stringify(requests[2]!.body.messages.at(-1))).toMatch(/Created issue #\d+: Late /);

    // The token reached the server (it refuses requests without it) and is nowhere in the history.
    const history = await historyText(handle);
    expect(history).toContain(`"bearerTokenEnv":"${TOKEN_ENV}"`);
    expect(history).not.toContain(SECRET);
  });

  it("refuse an approver's edited arguments that do not match the server's schema, and send valid ones", async () => {
    const t = token();
    lookupThenIssue(t);
    const { handle } = await startTask(client, worker.taskQueue, 'test-llm-mcp', { text: `Is ${t} late?` });
    await waitForState(handle, 'input-required');

    const invalid = { decision: 'approve', arguments: { title: 42 } };
    expect(await refusal(reply(handle, { text: '', data: invalid, responder: 'alice' }))).toMatch(
      /arguments\.title: Invalid input: expected string, received number/,
    );
    expect(callsOf(t).map((call) => call.tool)).toEqual(['lookup_order']);

    const edited = { decision: 'approve', arguments: { title: `Very late ${t}` } };
    await reply(handle, { text: '', data: edited, responder: 'alice' });
    expect(stateOf((await finalTask(handle)).task)).toBe('completed');
    expect(callsOf(t).at(-1)).toEqual({ tool: 'create_issue', args: { title: `Very late ${t}` } });
  });

  it('keep the list of the task across a worker restart, while the server has changed its tools', async () => {
    const t = token();
    lookupThenIssue(t);
    const listsBefore = count('tools/list');
    const first = await mcpWorker();
    const { handle } = await startTask(client, first.taskQueue, 'test-llm-mcp', { text: `Is ${t} late?` });
    await waitForState(handle, 'input-required');
    await first.shutdown();

    shop.changeTools(true);
    const again = await mcpWorker(first.taskQueue);
    try {
      await reply(handle, { text: 'approve', responder: 'alice' });
      const { task } = await finalTask(handle);
      expect(stateOf(task)).toBe('completed');
      const requests = model.requestsMatching(t);
      expect(toolNames(requests.at(-1)!)).toEqual([
        'shop_create_issue',
        'shop_slow_report',
        'shop_lookup_order',
        'ask_user',
      ]);
      expect(callsOf(t).map((call) => call.tool)).toEqual(['lookup_order', 'create_issue']);
      expect(count('tools/list') - listsBefore).toBe(1);

      // A new task lists the tools the server has now.
      const n = token();
      model.script({ match: n, text: 'ok' });
      const { handle: next } = await startTask(client, again.taskQueue, 'test-llm-mcp', { text: `List ${n}` });
      expect(stateOf((await finalTask(next)).task)).toBe('completed');
      expect(toolNames(model.requestsMatching(n)[0]!)).toEqual([
        'shop_create_issue',
        'shop_slow_report',
        'shop_archive_order',
        'ask_user',
      ]);
    } finally {
      shop.changeTools(false);
      await again.shutdown();
    }
  });

  it('are not called again by a worker that takes over after the call succeeded, before the model saw it', async () => {
    const t = token();
    model.script(
      { match: t, toolCalls: [{ name: 'shop_lookup_order', arguments: { orderId: t } }] },
      { match: `Order ${t}`, text: `${t} has shipped.` },
    );
    // Its in-flight activities may finish once it stops: the call completes, nothing runs after it.
    const first = await mcpWorker(undefined, '10 seconds');
    shop.onCall = (call) => {
      if (call.args.orderId === t) first.worker.shutdown();
    };
    try {
      const { handle } = await startTask(client, first.taskQueue, 'test-llm-mcp', { text: `Where is ${t}?` });
      await expect.poll(() => callsOf(t).length, { timeout: 30_000 }).toBe(1);
      await first.shutdown();
      expect(callsOf(t)).toHaveLength(1);
      expect(model.requestsMatching(t)).toHaveLength(1);
      const history = await handle.fetchHistory();
      const completed = history.events?.filter((event) => event.activityTaskCompletedEventAttributes) ?? [];
      expect(completed).toHaveLength(3); // listing, the model call, the MCP call

      const again = await mcpWorker(first.taskQueue);
      try {
        const { task } = await finalTask(handle);
        expect(stateOf(task)).toBe('completed');
        expect(task.status.message?.parts[0]?.text).toBe(`${t} has shipped.`);
        expect(callsOf(t)).toHaveLength(1);
        expect(model.requestsMatching(t)).toHaveLength(2);
      } finally {
        await again.shutdown();
      }
    } finally {
      shop.onCall = undefined;
    }
  });

  it("fail the task at its start, naming the variable, when the worker's environment lacks the server's token", async () => {
    const { handle } = await startTask(client, worker.taskQueue, 'test-llm-mcp-no-token', { text: 'Anything' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('failed');
    expect(task.status.message?.parts[0]?.text).toMatch(
      /^The tools of the MCP servers could not be listed: MCP server shop needs A2A_TEST_MCP_TOKEN_NOT_SET/,
    );
  });
});

describe("the worker's MCP connections", () => {
  it('reuse a session, and replace one the server has forgotten (a restart) without failing the call', async () => {
    const connections = new McpConnections();
    const connection = { url: shop.url, bearerTokenEnv: TOKEN_ENV };
    const names = () =>
      connections.use('shop', connection, new AbortController().signal, async (mcp) =>
        (await mcp.listTools()).tools.map((tool) => tool.name),
      );
    try {
      const initializes = count('initialize');
      expect(await names()).toContain('lookup_order');
      expect(await names()).toContain('lookup_order');
      expect(count('initialize') - initializes).toBe(1);
      await shop.dropSessions();
      expect(await names()).toContain('lookup_order');
      expect(count('initialize') - initializes).toBe(2);
    } finally {
      await connections.closeAll();
    }
  });
});

describe('an MCP server that does not start', () => {
  const listing = (server: string, connection: Parameters<McpConnections['use']>[1]) => {
    const connections = new McpConnections();
    return connections
      .use(server, connection, new AbortController().signal, (mcp) => mcp.listTools())
      .then(
        () => expect.unreachable('the server was reached'),
        (error: unknown) => (error as Error).message,
      )
      .finally(() => connections.closeAll());
  };

  it('over HTTP: the failure names the server, its URL and the refused connection', async () => {
    const closed = await startFakeModelServer();
    const url = `${new URL(closed.url).origin}/mcp`;
    await closed.close();
    expect(await listing('shop', { url })).toMatch(
      new RegExp(`^MCP server shop at ${url} could not be reached: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+$`),
    );
  });

  it("over stdio: the failure names the server, its command and quotes the end of the process's stderr", async () => {
    const dir = temp.make('a2a-mcp-missing-');
    const message = await listing('notes', { command: 'node', args: ['missing-server.js'], cwd: dir });
    expect(message).toMatch(/^MCP server notes \(node missing-server\.js\) did not start: /);
    expect(message).toMatch(/Its stderr ends: .*Cannot find module '.*missing-server\.js'/s);
  });
});

describe('cancelling a task during an MCP call', () => {
  it('cancels the call on the server and ends canceled; the agent sees only the tool it picked, under its prefix', async () => {
    const t = token();
    model.script({ match: t, toolCalls: [{ name: 'reports_slow_report', arguments: { topic: t } }] });
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-llm-mcp-reports', {
      text: `Report ${t}`,
    });
    await expect.poll(() => callsOf(t).length, { timeout: 30_000 }).toBe(1);
    const canceled = await cancelTask(client, taskId, { by: 'alice' });
    expect(stateOf(canceled)).toBe('canceled');
    // The activity heard the cancel through its heartbeats; the SDK told the server (notifications/cancelled).
    await expect.poll(() => shop.canceled).toContainEqual({ topic: t });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskCanceledEventAttributes)).toHaveLength(1);
    expect(events.filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);
    expect(toolNames(model.requestsMatching(t)[0]!)).toEqual(['reports_slow_report']);
  });
});

describe('a stdio MCP server the worker starts', () => {
  it('runs its tools; a call its approval predicate holds waits for "approve", then runs once', async () => {
    const t = token();
    model.script(
      { match: t, toolCalls: [{ name: 'notes_add_note', arguments: { text: t } }] },
      { match: 'Noted.', toolCalls: [{ name: 'notes_delete_notes', arguments: { reason: `done with ${t}` } }] },
      { match: 'Deleted 1 notes', text: `Cleared the notes of ${t}.` },
    );
    const { handle } = await startTask(client, worker.taskQueue, 'test-llm-mcp-stdio', { text: `Note ${t}` });
    const waiting = await waitForState(handle, 'input-required');
    expect((waiting.metadata as any).pendingQuestion.details).toMatchObject({
      tool: 'notes_delete_notes',
      reason: `deletes every note (done with ${t})`,
    });
    const calls = () =>
      readFileSync(callsFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes(t))
        .map((line) => JSON.parse(line).tool);
    expect(calls()).toEqual(['add_note']);

    await reply(handle, { text: 'approve' });
    const { task } = await finalTask(handle);
    expect(stateOf(task)).toBe('completed');
    expect(task.status.message?.parts[0]?.text).toBe(`Cleared the notes of ${t}.`);
    expect(calls()).toEqual(['add_note', 'delete_notes']);
  });
});
