/**
 * Identity on every transport: API keys and JWTs authenticate callers; a task belongs to the
 * principal that created it, and for anyone else (bar the principals and groups allowed to answer
 * its question) it does not exist; approvers are checked by principal and group, never by a name a
 * client claims; bad credentials are refused on JSON-RPC, HTTP+JSON and gRPC alike.
 */
import { ListTasksRequest, Message } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { SignJWT } from 'jose';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import agents from '../../../../examples/agents/index.js';
import { createAuthenticator } from '../../../../src/gateway/auth/authenticator.js';
import { hashApiKey } from '../../../../src/gateway/auth/settings.js';
import { run as runCli } from '../../../../src/cli/run.js';
import { RateLimit } from '../../../../src/gateway/auth/rate-limit.js';
import { startGateway } from '../../../../src/gateway/server.js';
import { askingAgent } from '../../../support/agents/test-agents.js';
import { TemporalCalls } from '../../../support/temporal-calls.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../../support/gateway-harness.js';
import { sseRpc } from '../../../support/sse.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const PEOPLE = { alice: ['staff'], bob: ['staff'], carol: ['finance'], dave: ['finance'] } as const;
type Person = keyof typeof PEOPLE;
const keyOf = (person: Person) => `key-of-${person}`;

const authenticator = createAuthenticator({
  methods: ['api-key', 'jwt'],
  apiKeys: Object.entries(PEOPLE).map(([person, groups]) => ({
    sha256: hashApiKey(keyOf(person as Person)),
    principal: person,
    groups: [...groups],
  })),
  jwt: {
    secret: SECRET,
    issuer: 'https://issuer.test',
    audience: 'a2a-gateway',
    clockToleranceSeconds: 30,
    groupsClaim: 'groups',
  },
});

const harness = useGatewayHarness({ gateway: { agents: [...agents, askingAgent], authenticator } });

const as = (person: Person) => ({ 'x-api-key': keyOf(person) });

async function rpc(agent: string, method: string, params: unknown, headers: Record<string, string>) {
  const response = await fetch(`${harness.gateway.url}/agents/${agent}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: response.status, ...((await response.json()) as { result?: any; error?: any }) };
}

async function rest(agent: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${harness.gateway.url}/agents/${agent}/rest${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function grpcClient(agent: string): Promise<A2AClient> {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()],
    preferredTransports: ['GRPC'],
  });
  return new ClientFactory(options).createFromUrl(`${harness.gateway.url}/agents/${agent}/`);
}

/** A JWT the gateway accepts (unless a claim or the secret says otherwise). */
const token = (claims: { aud?: string; exp?: number; sub?: string; groups?: string[] }, secret = SECRET) =>
  new SignJWT({ groups: claims.groups ?? ['staff'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub ?? 'erin')
    .setIssuer('https://issuer.test')
    .setAudience(claims.aud ?? 'a2a-gateway')
    .setIssuedAt()
    .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(secret));

function message(text: string, extra: Record<string, unknown> = {}) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

async function waitingExpense(owner: Person): Promise<string> {
  const sent = await rpc('expense-approval', 'SendMessage', { message: message(EXPENSE_REQUEST) }, as(owner));
  expect(sent.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return sent.result.task.id;
}

/** What a gRPC call ended with: 'ok', 'TaskNotFound' (the SDK client's A2A error), or the gRPC status code. */
async function grpcOutcome(call: Promise<unknown>): Promise<string | number> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    if (error instanceof TaskNotFoundError) return 'TaskNotFound';
    const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
    return typeof code === 'number' ? code : String(error);
  }
}

describe('another principal cannot reach a task', () => {
  it('over JSON-RPC: get, list, subscribe, follow-up (even claiming the owner as responder), cancel', async () => {
    const taskId = await waitingExpense('alice');
    const bob = as('bob');
    expect((await rpc('expense-approval', 'GetTask', { id: taskId }, bob)).error.code).toBe(-32001);
    const listed = await rpc('expense-approval', 'ListTasks', {}, bob);
    expect(listed.result.tasks.map((task: any) => task.id)).not.toContain(taskId);
    await expect(async () => {
      for await (const _ of sseRpc(`${harness.gateway.url}/agents/expense-approval`, 'SubscribeToTask', { id: taskId }))
        break;
    }).rejects.toThrow(/-32001|401/);
    const claim = message('approve', { taskId, metadata: { responder: 'alice' } });
    expect((await rpc('expense-approval', 'SendMessage', { message: claim }, bob)).error.code).toBe(-32001);
    expect((await rpc('expense-approval', 'CancelTask', { id: taskId }, bob)).error.code).toBe(-32001);
    // Through another agent's endpoint, the owner does not find it either.
    expect((await rpc('echo', 'GetTask', { id: taskId }, as('alice'))).error.code).toBe(-32001);

    // The rightful owner: each of the same calls works.
    expect((await rpc('expense-approval', 'GetTask', { id: taskId }, as('alice'))).result.id).toBe(taskId);
    await expect
      .poll(async () =>
        (await rpc('expense-approval', 'ListTasks', {}, as('alice'))).result.tasks.map((t: any) => t.id),
      )
      .toContain(taskId);
    const canceled = await rpc('expense-approval', 'CancelTask', { id: taskId }, as('alice'));
    expect(canceled.result.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('over HTTP+JSON: get, list, subscribe, follow-up, cancel', async () => {
    const taskId = await waitingExpense('alice');
    const bob = as('bob');
    expect((await rest('expense-approval', 'GET', `/tasks/${taskId}`, bob)).status).toBe(404);
    const listed = await rest('expense-approval', 'GET', '/tasks', bob);
    expect(listed.body.tasks?.map((task: any) => task.id) ?? []).not.toContain(taskId);
    expect((await rest('expense-approval', 'GET', `/tasks/${taskId}:subscribe`, bob)).status).toBe(404);
    const followUp = { message: message('approve', { taskId }) };
    expect((await rest('expense-approval', 'POST', '/message:send', bob, followUp)).status).toBe(404);
    expect((await rest('expense-approval', 'POST', `/tasks/${taskId}:cancel`, bob, {})).status).toBe(404);

    expect((await rest('expense-approval', 'GET', `/tasks/${taskId}`, as('alice'))).body.id).toBe(taskId);
    const done = await rest('expense-approval', 'POST', '/message:send', as('alice'), followUp);
    expect(done.body.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('over gRPC: get, list, subscribe, follow-up (claiming a responder), cancel, and another tenant', async () => {
    const taskId = await waitingExpense('alice');
    const client = await grpcClient('expense-approval');
    const bob = { serviceParameters: as('bob') };
    const NOT_FOUND = 'TaskNotFound';
    expect(await grpcOutcome(client.getTask({ id: taskId, tenant: 'expense-approval' } as any, bob))).toBe(NOT_FOUND);
    const listed: any = await client.listTasks(ListTasksRequest.fromJSON({ tenant: 'expense-approval' }), bob);
    expect(listed.tasks.map((task: any) => task.id)).not.toContain(taskId);
    const subscribe = (async () => {
      for await (const _ of client.resubscribeTask({ id: taskId, tenant: 'expense-approval' } as any, bob)) break;
    })();
    expect(await grpcOutcome(subscribe)).toBe(NOT_FOUND);
    const claim = Message.fromJSON(message('approve', { taskId, metadata: { responder: 'alice' } }));
    expect(await grpcOutcome(client.sendMessage({ message: claim, tenant: 'expense-approval' } as any, bob))).toBe(
      NOT_FOUND,
    );
    expect(await grpcOutcome(client.cancelTask({ id: taskId, tenant: 'expense-approval' } as any, bob))).toBe(
      NOT_FOUND,
    );
    const otherTenant = { id: taskId, tenant: 'echo' };
    expect(await grpcOutcome(client.getTask(otherTenant as any, { serviceParameters: as('alice') }))).toBe(NOT_FOUND);

    const alice = { serviceParameters: as('alice') };
    expect(((await client.getTask({ id: taskId, tenant: 'expense-approval' } as any, alice)) as any).id).toBe(taskId);
    expect(await grpcOutcome(client.cancelTask({ id: taskId, tenant: 'expense-approval' } as any, alice))).toBe('ok');
  });
});

describe('a stranger is turned away as from a task that does not exist', () => {
  /** A gateway on the harness's worker whose Temporal client records its calls. */
  async function recordedGateway() {
    const calls = new TemporalCalls();
    const client = await calls.client();
    const gateway = await startGateway({
      client,
      agents: [...agents, askingAgent],
      taskQueue: harness.worker.taskQueue,
      grpcPort: false,
      authenticator,
    });
    const close = async () => {
      await gateway.close();
      await client.connection.close();
    };
    return { calls, url: gateway.url, close };
  }

  /** A JSON-RPC call's error code ('ok' without one), or an HTTP+JSON call's status. */
  async function outcome(url: string, method: string, params: unknown, person: Person): Promise<string> {
    if (method === 'SubscribeToTask') {
      const response = await fetch(`${url}/rest/tasks/${(params as { id: string }).id}:subscribe`, {
        headers: { 'A2A-Version': '1.0', ...as(person) },
      });
      await response.text();
      return `HTTP ${response.status}`;
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...as(person) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { error?: { code: number } };
    return body.error ? String(body.error.code) : 'ok';
  }

  /** Each call a stranger might make about a task, by name. */
  const strangerCalls = (taskId: string): Record<string, unknown> => ({
    GetTask: { id: taskId },
    SubscribeToTask: { id: taskId },
    CancelTask: { id: taskId },
    ListTaskPushNotificationConfigs: { taskId },
    GetTaskPushNotificationConfig: { taskId, id: 'hook' },
  });

  it("costs the same Temporal calls (one describe) for another owner's task as for a missing one, on every path but a reply", async () => {
    const recorded = await recordedGateway();
    try {
      const url = `${recorded.url}/agents/expense-approval`;
      const existing = await waitingExpense('alice');
      const missing = randomUUID();
      for (const method of Object.keys(strangerCalls(existing))) {
        const call = (taskId: string) => outcome(url, method, strangerCalls(taskId)[method], 'bob');
        const onExisting = await recorded.calls.about(existing, () =>
          expect(call(existing)).resolves.toMatch(/-32001|404/),
        );
        const onMissing = await recorded.calls.about(missing, () =>
          expect(call(missing)).resolves.toMatch(/-32001|404/),
        );
        // No query, Update or result read before the refusal: nothing the worker answers, nothing that takes longer.
        expect(onExisting, method).toEqual(['DescribeWorkflowExecution']);
        expect(onExisting, method).toEqual(onMissing);
      }
      // A reply is one Update, accepted or refused (test/integration/gateway/answer-calls.test.ts): its validator
      // turns the stranger away, after a round trip to the worker that a missing task's refusal does
      // not make; that one pays a describe instead, which tells a closed task from none.
      const reply = (taskId: string) => outcome(url, 'SendMessage', { message: message('approve', { taskId }) }, 'bob');
      const replied = await recorded.calls.about(existing, () => expect(reply(existing)).resolves.toBe('-32001'));
      expect(replied).toEqual(['UpdateWorkflowExecution']);
      const nowhere = await recorded.calls.about(missing, () => expect(reply(missing)).resolves.toBe('-32001'));
      expect(nowhere).toEqual(['UpdateWorkflowExecution', 'DescribeWorkflowExecution']);
      // The owner still reads the task, by query.
      const owned = await recorded.calls.about(existing, () =>
        expect(outcome(url, 'GetTask', { id: existing }, 'alice')).resolves.toBe('ok'),
      );
      expect(owned).toContain('QueryWorkflow');
    } finally {
      await recorded.close();
    }
  });

  it('lets in who may answer and who answered, from the describe too, and turns the others away there', async () => {
    const recorded = await recordedGateway();
    try {
      const url = `${recorded.url}/agents/test-ask`;
      const ask = {
        message: { ...message('approve my request'), parts: [{ data: { responders: ['group:finance'] } }] },
      };
      const created = await rpc('test-ask', 'SendMessage', ask, as('carol'));
      const taskId = created.result.task.id as string;
      const get = (person: Person) =>
        recorded.calls.about(taskId, () => expect(outcome(url, 'GetTask', { id: taskId }, person)).resolves.toBe('ok'));
      const refused = (person: Person) =>
        recorded.calls.about(taskId, () =>
          expect(outcome(url, 'GetTask', { id: taskId }, person)).resolves.toBe('-32001'),
        );
      // dave (finance) may answer the waiting question; bob may not, and learns nothing more than a describe costs.
      expect(await get('dave')).toContain('QueryWorkflow');
      expect(await refused('bob')).toEqual(['DescribeWorkflowExecution']);
      const done = await rpc('test-ask', 'SendMessage', { message: message('yes', { taskId }) }, as('dave'));
      expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      // dave answered: he keeps seeing the ended task (its audience memo names him); bob still does not.
      expect(await get('dave')).toContain('DescribeWorkflowExecution');
      expect(await refused('bob')).toEqual(['DescribeWorkflowExecution']);
    } finally {
      await recorded.close();
    }
  });
});

describe('push notification configs belong to the task owner', () => {
  it('over JSON-RPC and HTTP+JSON: another principal can neither create, list, get nor delete them', async () => {
    const taskId = await waitingExpense('alice');
    const config = { taskId, id: 'alice-hook', url: 'https://example.com/hook' };
    const created = await rpc('expense-approval', 'CreateTaskPushNotificationConfig', config, as('alice'));
    expect(created.result.id).toBe('alice-hook');
    const bob = as('bob');
    const ids = { taskId, id: 'alice-hook' };
    for (const method of ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig']) {
      expect((await rpc('expense-approval', method, { ...config, ...ids }, bob)).error.code).toBe(-32001);
    }
    expect((await rpc('expense-approval', 'ListTaskPushNotificationConfigs', { taskId }, bob)).error.code).toBe(-32001);
    expect((await rpc('expense-approval', 'DeleteTaskPushNotificationConfig', ids, bob)).error.code).toBe(-32001);
    const configsPath = `/tasks/${taskId}/pushNotificationConfigs`;
    expect((await rest('expense-approval', 'GET', configsPath, bob)).status).toBe(404);
    expect((await rest('expense-approval', 'DELETE', `${configsPath}/alice-hook`, bob)).status).toBe(404);
    const listed = await rest('expense-approval', 'GET', configsPath, as('alice'));
    expect(listed.body.configs.map((c: { id: string }) => c.id)).toEqual(['alice-hook']);
  });

  it('an approver, who sees the task, can neither read, redirect nor delete its webhooks', async () => {
    const ask = { message: { ...message('approve my request'), parts: [{ data: { responders: ['group:finance'] } }] } };
    const taskId = (await rpc('test-ask', 'SendMessage', ask, as('carol'))).result.task.id;
    const secrets = { token: 'carol-token', authentication: { scheme: 'Bearer', credentials: 'carol-secret' } };
    const config = { taskId, id: 'carol-hook', url: 'https://example.com/carol', ...secrets };
    const created = await rpc('test-ask', 'CreateTaskPushNotificationConfig', config, as('carol'));
    expect(JSON.stringify(created.result)).not.toMatch(/carol-token|carol-secret/);
    const dave = as('dave');
    expect((await rpc('test-ask', 'GetTask', { id: taskId }, dave)).result.id).toBe(taskId);
    const ids = { taskId, id: 'carol-hook' };
    const hijack = { ...config, url: 'https://example.com/dave' };
    for (const [method, params] of [
      ['GetTaskPushNotificationConfig', ids],
      ['ListTaskPushNotificationConfigs', { taskId }],
      ['CreateTaskPushNotificationConfig', hijack],
      ['DeleteTaskPushNotificationConfig', ids],
    ] as const) {
      const refused = await rpc('test-ask', method, params, dave);
      expect(refused.error?.code, method).toBe(-32004);
      expect(JSON.stringify(refused)).not.toMatch(/carol-token|carol-secret/);
    }
    const configsPath = `/tasks/${taskId}/pushNotificationConfigs`;
    expect((await rest('test-ask', 'GET', `${configsPath}/carol-hook`, dave)).status).toBe(400);
    // The owner's config is untouched, and even she reads its secrets back redacted.
    const own = await rpc('test-ask', 'GetTaskPushNotificationConfig', ids, as('carol'));
    expect(own.result).toMatchObject({
      url: 'https://example.com/carol',
      token: '[redacted]',
      authentication: { scheme: 'Bearer', credentials: '[redacted]' },
    });
  });
});

describe('credentials', () => {
  it('refuses expired, wrong-audience and wrongly signed JWTs, unknown API keys and no credentials, on each transport', async () => {
    const bad: Record<string, Record<string, string>> = {
      expired: { authorization: `Bearer ${await token({ exp: Math.floor(Date.now() / 1000) - 3600 })}` },
      'wrong audience': { authorization: `Bearer ${await token({ aud: 'someone-else' })}` },
      'wrong signature': { authorization: `Bearer ${await token({}, 'another-secret-of-at-least-32-bytes!!')}` },
      'unknown API key': { 'x-api-key': 'not-a-key' },
      none: {},
    };
    const grpc = await grpcClient('echo');
    for (const [what, headers] of Object.entries(bad)) {
      const viaRpc = await rpc('echo', 'SendMessage', { message: message('hi') }, headers);
      expect(viaRpc.status, `JSON-RPC, ${what}`).toBe(401);
      expect((await rest('echo', 'POST', '/message:send', headers, { message: message('hi') })).status, what).toBe(401);
      const viaGrpc = grpc.sendMessage({ message: Message.fromJSON(message('hi')), tenant: 'echo' } as any, {
        serviceParameters: headers,
      });
      expect(await grpcOutcome(viaGrpc), `gRPC, ${what}`).toBe(16 /* UNAUTHENTICATED */);
    }
    const good = { authorization: `Bearer ${await token({})}` };
    expect((await rpc('echo', 'SendMessage', { message: message('hi') }, good)).result.task.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    // The public card stays public and declares how to authenticate.
    const card: any = await (await fetch(`${harness.gateway.url}/agents/echo/.well-known/agent-card.json`)).json();
    expect(Object.keys(card.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
  });
});

describe('approvers', () => {
  it('are checked by group against the authenticated identity; the requester may be barred from approving', async () => {
    const ask = {
      message: {
        ...message('approve my request'),
        parts: [{ data: { responders: ['group:finance'], notByRequester: true } }],
      },
    };
    const created = await rpc('test-ask', 'SendMessage', ask, as('carol'));
    expect(created.error).toBeUndefined();
    const taskId = created.result.task.id;
    expect(created.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    // bob is not in finance: for him the task does not exist, whatever name he claims.
    const claimed = message('yes', { taskId, metadata: { responder: 'dave' } });
    expect((await rpc('test-ask', 'SendMessage', { message: claimed }, as('bob'))).error.code).toBe(-32001);
    // carol is in finance but asked: refused, and the task keeps waiting.
    const self = await rpc('test-ask', 'SendMessage', { message: message('yes', { taskId }) }, as('carol'));
    expect(self.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requester may not answer/) });
    // dave (finance) sees the question and answers it.
    expect((await rpc('test-ask', 'GetTask', { id: taskId }, as('dave'))).result.status.state).toBe(
      'TASK_STATE_INPUT_REQUIRED',
    );
    const done = await rpc('test-ask', 'SendMessage', { message: message('yes', { taskId }) }, as('dave'));
    expect(done.error).toBeUndefined();
    expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(done.result.task.status.message.parts[0].text)).toMatchObject({ responder: 'dave' });
    const timeline = done.result.task.metadata.timeline as { by?: string }[];
    expect(timeline.map((entry) => entry.by)).toContain('dave');
  });
});

describe('principals and groups are separate namespaces', () => {
  it('a principal named like a group never acts as the group', async () => {
    const ask = { message: { ...message('approve my request'), parts: [{ data: { responders: ['group:finance'] } }] } };
    const created = await rpc('test-ask', 'SendMessage', ask, as('carol'));
    const taskId = created.result.task.id;
    expect(created.result.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const impostor = { authorization: `Bearer ${await token({ sub: 'group:finance', groups: [] })}` };
    expect((await rpc('test-ask', 'GetTask', { id: taskId }, impostor)).error.code).toBe(-32001);
    const answer = await rpc('test-ask', 'SendMessage', { message: message('approve', { taskId }) }, impostor);
    expect(answer.error.code).toBe(-32001);
    // A real member of the group still answers.
    const done = await rpc('test-ask', 'SendMessage', { message: message('approve', { taskId }) }, as('dave'));
    expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('abuse limits', () => {
  it('limits how fast a principal starts tasks, on each transport, with a retry-later answer', async () => {
    const limited = await startGateway({
      client: harness.temporal,
      agents,
      taskQueue: harness.worker.taskQueue,
      authenticator: createAuthenticator({
        methods: ['api-key'],
        apiKeys: [{ sha256: hashApiKey(keyOf('erin' as Person)), principal: 'erin', groups: [] }],
      }),
      newTaskLimit: new RateLimit(2),
    });
    try {
      const erin = { 'x-api-key': keyOf('erin' as Person) };
      const send = (body: unknown) =>
        fetch(`${limited.url}/agents/echo`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...erin },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: body }),
        });
      expect((await send({ message: message('one') })).status).toBe(200);
      expect((await send({ message: message('two') })).status).toBe(200);
      const third = await send({ message: message('three') });
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await third.json()) as any).error.message).toMatch(/Too many new tasks; retry in \d+ s/);
      const viaRest = await fetch(`${limited.url}/agents/echo/rest/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...erin },
        body: JSON.stringify({ message: message('four') }),
      });
      expect(viaRest.status).toBe(429);
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()],
        preferredTransports: ['GRPC'],
      });
      const grpc = await new ClientFactory(options).createFromUrl(`${limited.url}/agents/echo/`);
      const viaGrpc = grpc.sendMessage({ message: Message.fromJSON(message('five')), tenant: 'echo' } as any, {
        serviceParameters: erin,
      });
      expect(await grpcOutcome(viaGrpc)).toBe(8 /* RESOURCE_EXHAUSTED */);
    } finally {
      await limited.close();
    }
  });
});

/** The CLI's output, collected, for a run with this environment. */
function cliIo() {
  const lines: string[] = [];
  const io = (env: NodeJS.ProcessEnv) => ({
    out: (text: string) => lines.push(text),
    err: (text: string) => lines.push(text),
    env,
    now: () => new Date(),
  });
  return { lines, io };
}

describe('the CLI', () => {
  it('sends A2A_API_KEY (or A2A_TOKEN) with every call, and fails without it', async () => {
    const { lines, io } = cliIo();
    const argv = ['send', 'echo', 'hello', '--url', harness.gateway.url, '--json'];
    expect(await runCli(argv, io({ A2A_API_KEY: keyOf('alice') }))).toBe(0);
    expect(JSON.parse(lines.at(-1)!).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await runCli(argv, io({}))).not.toBe(0);
  });

  it('lists what waits for the caller across agents (inbox), with the same credentials', async () => {
    const { lines, io } = cliIo();
    const ask = { message: { ...message('approve my request'), parts: [{ data: { responders: ['group:finance'] } }] } };
    const taskId = (await rpc('test-ask', 'SendMessage', ask, as('carol'))).result.task.id;
    const inbox = async (person: Person | undefined, ...flags: string[]) => {
      lines.length = 0;
      const code = await runCli(
        ['inbox', '--url', harness.gateway.url, ...flags],
        io(person ? { A2A_API_KEY: keyOf(person) } : {}),
      );
      return { code, text: lines.join('\n') };
    };
    // Visibility catches up within a second or so.
    await expect.poll(async () => (await inbox('dave')).text, { timeout: 10_000 }).toContain(taskId);
    const { code, text } = await inbox('dave', '--agent', 'test-ask');
    expect(code).toBe(0);
    expect(text).toMatch(/TASK +AGENT +QUESTION +ASKED BY/);
    expect(text).toMatch(new RegExp(`${taskId} +test-ask +Your answer\\? +carol`));
    expect(text).toMatch(/Answer: {2}.*tasks reply \S+ <answer> --agent \S+/);
    const asJson = await inbox('dave', '--json');
    expect(JSON.parse(asJson.text).questions.map((q: { taskId: string }) => q.taskId)).toContain(taskId);
    // Not in finance: not listed; no credentials: refused, saying what to set.
    expect((await inbox('bob')).text).not.toContain(taskId);
    const anonymous = await inbox(undefined);
    expect(anonymous.code).toBe(3);
    expect(anonymous.text).toMatch(/set A2A_API_KEY or A2A_TOKEN/);
  });
});

describe('the production gateway', () => {
  it('refuses to start without an authentication setting, and says what to set', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      GRPC_PORT: 'off',
      TEMPORAL_ADDRESS: inject('temporalAddress'),
    };
    delete env.A2A_AUTH;
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const child = spawn(process.execPath, ['bin/a2a-temporal.js', 'gateway', 'examples/a2a-temporal.config.ts'], {
      cwd: root,
      env,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/Set A2A_AUTH to api-key, jwt or trusted-header .*or to none/);
  });
});
