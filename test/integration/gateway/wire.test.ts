/** Raw HTTP and gRPC: error codes, body handling, agent cards and ListTasks, as a strict client sees them. */
import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { ListTasksRequest } from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { decodeErrorInfo, decodeStatus } from '@a2a-js/sdk/errors/grpc';
import { routeConsoleToLogger } from '../../../src/logging.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';

const harness = useGatewayHarness();
let agentUrl: string;
beforeAll(() => {
  agentUrl = `${harness.gateway.url}/agents/expense-approval`;
});

const V1 = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function rpc(method: string, params: unknown, headers: Record<string, string> = V1, url = agentUrl) {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: { code: number; message: string; data?: unknown } };
}

function send(text: string, extra: Record<string, unknown> = {}) {
  return rpc('SendMessage', { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra } });
}

describe('JSON-RPC errors', () => {
  it('answers at the agent URL with and without a trailing slash', async () => {
    expect((await rpc('GetTask', { id: 'x' }, V1, `${agentUrl}/`)).error?.code).toBe(-32001);
    expect((await rpc('GetTask', { id: 'x' })).error?.code).toBe(-32001);
  });

  it('maps task errors to A2A codes', async () => {
    const waiting = (await send(EXPENSE_REQUEST)).result.task;
    expect(waiting.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const mismatch = await send('approve', { taskId: waiting.id, contextId: 'another-context' });
    expect(mismatch.error?.code).toBe(-32602);
    const done = await send('deny', { taskId: waiting.id });
    expect(done.result.task.status.state).toBe('TASK_STATE_REJECTED');
    expect((await send('approve', { taskId: waiting.id })).error?.code).toBe(-32004);
    expect((await rpc('CancelTask', { id: waiting.id })).error?.code).toBe(-32002);
    expect((await send('hello', { taskId: 'unknown-task' })).error?.code).toBe(-32001);
    const notFound = await rpc('GetTask', { id: 'unknown-task' });
    expect(notFound.error?.data).toEqual([expect.objectContaining({ reason: 'TASK_NOT_FOUND' })]);
    const refusedUrl = { taskId: waiting.id, id: 'hook', url: 'ftp://example.com/hook' };
    expect((await rpc('CreateTaskPushNotificationConfig', refusedUrl)).error?.code).toBe(-32602);
  });

  it('rejects bad requests before touching Temporal', async () => {
    expect((await rpc('NonExistentMethod', {})).error?.code).toBe(-32601);
    const noMessage = await rpc('SendMessage', {});
    expect(noMessage.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.message') });
    const badLength = await rpc('GetTask', { id: 'x', history_length: 'ten' });
    expect(badLength.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.historyLength') });
    const noParts = await send('', { parts: [] });
    expect(noParts.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.message.parts') });
    const envelope = await fetch(agentUrl, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ id: 7, method: 'GetTask' }),
    });
    expect(((await envelope.json()) as any).error).toMatchObject({ code: -32600 });
    const batch = await fetch(agentUrl, { method: 'POST', headers: V1, body: '[1, 2]' });
    expect(((await batch.json()) as any).error).toMatchObject({ code: -32600 });
    expect((await rpc('GetTask', { id: 'x' }, { ...V1, 'a2a-version': '99.0' })).error?.code).toBe(-32009);
    // A v1.0 method without the version header: the answer says what to add.
    const unversioned = await rpc('GetTask', { id: 'x' }, { 'content-type': 'application/json' });
    expect(unversioned.error).toMatchObject({
      code: -32601,
      message: expect.stringContaining('send the header "A2A-Version: 1.0"'),
    });
    const wrongType = await fetch(agentUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: "{'a': 1}",
    });
    expect(((await wrongType.json()) as any).error.code).toBe(-32005);
    const broken = await fetch(agentUrl, { method: 'POST', headers: V1, body: '{"jsonrpc": "2.0", "id": 1,' });
    expect(((await broken.json()) as any).error.code).toBe(-32700);
    const large = await fetch(agentUrl, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ pad: 'x'.repeat(11_000_000) }),
    });
    expect(large.status).toBe(413);
    expect(((await large.json()) as any).error.code).toBe(-32600);
  });

  it('refuses v0.3 requests that lack a param as invalid params naming it', async () => {
    const v03 = { 'content-type': 'application/json' };
    const lacking: [string, object, string][] = [
      ['tasks/pushNotificationConfig/set', {}, 'params.taskId'],
      ['tasks/pushNotificationConfig/set', { taskId: 'x' }, 'params.pushNotificationConfig'],
      [
        'tasks/pushNotificationConfig/set',
        { taskId: 'x', pushNotificationConfig: {} },
        'params.pushNotificationConfig.url',
      ],
      ['tasks/pushNotificationConfig/get', {}, 'params.id'],
      ['tasks/pushNotificationConfig/list', {}, 'params.id'],
      ['tasks/pushNotificationConfig/delete', {}, 'params.id'],
      ['tasks/pushNotificationConfig/delete', { id: 'x' }, 'params.pushNotificationConfigId'],
      ['tasks/get', {}, 'params.id'],
      ['tasks/cancel', {}, 'params.id'],
      ['tasks/resubscribe', {}, 'params.id'],
      ['message/send', {}, 'params.message'],
      ['message/stream', {}, 'params.message'],
    ];
    for (const [method, params, field] of lacking) {
      const response = await fetch(agentUrl, {
        method: 'POST',
        headers: v03,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      // Read as text: a refusal is one JSON answer, never an event stream.
      const answer = JSON.parse(await response.text()) as { error?: unknown };
      expect({ method, params, error: answer.error }).toMatchObject({
        method,
        params,
        error: { code: -32602, message: expect.stringContaining(`Invalid ${field}`) },
      });
    }
    // A v0.3 name in a v1.0 request names no method there.
    expect((await rpc('tasks/get', {})).error?.code).toBe(-32601);
  });

  it('applies a resent message once', async () => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: EXPENSE_REQUEST }] };
    const task = (await rpc('SendMessage', { message })).result.task;
    const reply = { messageId: 'same-id', role: 'ROLE_USER', parts: [{ text: 'maybe' }], taskId: task.id };
    await rpc('SendMessage', { message: reply });
    const again = await rpc('SendMessage', { message: reply, configuration: { returnImmediately: true } });
    expect(again.result.task.history.filter((m: any) => m.messageId === 'same-id')).toHaveLength(1);
  });
});

describe('required extensions', () => {
  it('refuses a request that does not name an extension the agent requires (JSON-RPC, HTTP+JSON)', async () => {
    const url = `${harness.gateway.url}/agents/conformance-extension`;
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as any;
    expect(card.capabilities.extensions).toContainEqual(expect.objectContaining({ required: true }));
    const message = () => ({
      messageId: `tck-complete-task-${randomUUID()}`,
      role: 'ROLE_USER',
      parts: [{ text: 'hi' }],
    });
    const without = await rpc('SendMessage', { message: message() }, V1, url);
    expect(without.error).toMatchObject({ code: -32008, message: expect.stringContaining('A2A-Extensions') });
    const named = { ...V1, 'a2a-extensions': 'urn:a2a:tck:required-extension' };
    expect((await rpc('SendMessage', { message: message() }, named, url)).result?.task?.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    const rest = await fetch(`${url}/rest/message:send`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ message: message() }),
    });
    expect(rest.status).toBe(400);
  });
});

describe('REST errors', () => {
  it('uses HTTP statuses and AIP-193 bodies', async () => {
    const missing = await fetch(`${agentUrl}/rest/tasks/unknown-task`, { headers: V1 });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.details[0].reason).toBe('TASK_NOT_FOUND');
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    const empty = await fetch(`${agentUrl}/rest/message:send`, { method: 'POST', headers: V1, body: '{}' });
    expect(empty.status).toBeGreaterThanOrEqual(400);
    const wrongType = await fetch(`${agentUrl}/rest/message:send`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(wrongType.status).toBe(415);
  });
});

describe('HTTP+JSON as a2a-go sends it', () => {
  // Go's encoding/json writes the nil payload of a call without a body as `null`, on GET too (which
  // fetch refuses to send).
  const restCall = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; type?: string; text: string }>((resolve, reject) => {
      const length = { 'content-length': String(Buffer.byteLength(body ?? '')) };
      const request = http.request(`${agentUrl}/rest${path}`, { method, headers: { ...V1, ...length } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, type: response.headers['content-type'], text }),
        );
      });
      request.on('error', reject);
      request.end(body);
    });

  it('takes a body of exactly null as no body on every call that has none', async () => {
    const task = (await send(EXPENSE_REQUEST)).result.task;
    const hooks = `/tasks/${task.id}/pushNotificationConfigs`;
    await restCall('POST', hooks, JSON.stringify({ id: 'go', url: 'https://example.com/hook' }));
    const calls: [string, string, number][] = [
      ['GET', `/tasks/${task.id}`, 200],
      ['GET', `/tasks?contextId=${task.contextId}`, 200],
      ['GET', hooks, 200],
      ['GET', `${hooks}/go`, 200],
      ['DELETE', `${hooks}/go`, 200],
      ['GET', '/extendedAgentCard', 400],
      ['POST', `/tasks/${task.id}:cancel`, 200],
    ];
    const statuses = [];
    for (const [method, path] of calls) statuses.push((await restCall(method, path, 'null')).status);
    expect(statuses).toEqual(calls.map(([, , status]) => status));
    const subscribe = await restCall('GET', `/tasks/${task.id}:subscribe`, 'null');
    // The task was canceled just now: a subscription to a terminal task is refused as such.
    expect(subscribe.status).toBe(400);
    expect(JSON.parse(subscribe.text).error.details[0].reason).toBe('UNSUPPORTED_OPERATION');
  });

  it('answers a created push config 200 with the config, and a deleted one 200 with {}', async () => {
    const task = (await send(EXPENSE_REQUEST)).result.task;
    const hooks = `/tasks/${task.id}/pushNotificationConfigs`;
    const created = await restCall('POST', hooks, JSON.stringify({ id: 'go', url: 'https://example.com/hook' }));
    expect(created.status).toBe(200);
    expect(JSON.parse(created.text)).toMatchObject({ id: 'go', taskId: task.id, url: 'https://example.com/hook' });
    const deleted = await restCall('DELETE', `${hooks}/go`);
    expect(deleted).toMatchObject({ status: 200, type: expect.stringMatching(/^application\/json/), text: '{}' });
  });
});

describe('gRPC errors', () => {
  function getTask(client: grpc.Client, tenant: string, metadata: Record<string, string> = { 'a2a-version': '1.0' }) {
    const method = A2AService.getTask;
    const sent = new grpc.Metadata();
    for (const [key, value] of Object.entries(metadata)) sent.set(key, value);
    return new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        { tenant, id: 'unknown-task' },
        sent,
        { deadline: Date.now() + 10_000 },
        (error) => resolve(error),
      ),
    );
  }

  it('refuses an overlong tenant at once, with a short message, and the connection keeps answering', async () => {
    const client = new grpc.Client(harness.gateway.grpcAddress!, grpc.credentials.createInsecure());
    try {
      const huge = await getTask(client, 't'.repeat(100_000));
      expect(huge).toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
        details: 'tenant is longer than 256 characters',
      });
      const unknown = await getTask(client, 'u'.repeat(256));
      expect(unknown?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(unknown?.details).toMatch(/^No agent named "u+" is served here/);
      // The same connection still answers.
      expect((await getTask(client, 'expense-approval'))?.code).toBe(grpc.status.NOT_FOUND);
    } finally {
      client.close();
    }
  });

  it('keeps every status message short, whatever the request made it echo', async () => {
    const client = new grpc.Client(harness.gateway.grpcAddress!, grpc.credentials.createInsecure());
    try {
      // The SDK's version check quotes the requested version.
      const refused = await getTask(client, 'expense-approval', { 'a2a-version': 'v'.repeat(30_000) });
      expect(refused?.code).toBe(grpc.status.UNIMPLEMENTED);
      expect(Buffer.byteLength(refused!.details)).toBeLessThanOrEqual(1024);
      expect(refused!.details).toMatch(/^The requested A2A protocol version 'v+…$/);
      const [statusBin] = refused!.metadata.get('grpc-status-details-bin');
      const status = decodeStatus(statusBin as Buffer);
      expect(status.message).toBe(refused!.details);
      expect(decodeErrorInfo(Buffer.from(status.details[0]!.value)).reason).toBe('VERSION_NOT_SUPPORTED');
    } finally {
      client.close();
    }
  });
});

describe('logs of refused streams', () => {
  it('logs a client’s mistake on a stream at info, without a stack', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString()
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line)),
        );
        done();
      },
    });
    const waiting = (await send(EXPENSE_REQUEST)).result.task;
    const saved = { ...console };
    routeConsoleToLogger(pino({ base: null }, sink));
    try {
      const post = async (body: object, headers: Record<string, string> = V1) =>
        (
          await fetch(agentUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body }) })
        ).text();
      // v1.0: the stream fails before its first event; v0.3's resubscribe fails inside its event stream.
      await post({ method: 'SubscribeToTask', params: { id: 'unknown-task' } });
      await post(
        { method: 'tasks/resubscribe', params: { id: 'unknown-task' } },
        { 'content-type': 'application/json' },
      );
      const wrongContext = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'approve' }] };
      await post({
        method: 'SendStreamingMessage',
        params: { message: { ...wrongContext, taskId: waiting.id, contextId: 'another-context' } },
      });
    } finally {
      Object.assign(console, saved);
    }
    const refusals = lines.filter((line) => line.component === 'console');
    expect(refusals.map((line) => (line.clientError as { reason?: string } | undefined)?.reason)).toEqual([
      'TASK_NOT_FOUND',
      'TASK_NOT_FOUND',
      'INVALID_PARAMS',
    ]);
    for (const line of refusals) {
      expect(line.level).toBe(30);
      expect(line).not.toHaveProperty('err');
      expect(JSON.stringify(line)).not.toMatch(/\\n\s+at /);
    }
  });
});

describe('agent cards', () => {
  it('serves the v1.0 card with cache headers and every interface', async () => {
    const response = await fetch(`${agentUrl}/.well-known/agent-card.json`);
    expect(response.headers.get('cache-control')).toMatch(/max-age/);
    expect(response.headers.get('etag')).toBeTruthy();
    const card = (await response.json()) as any;
    // The 1.0 schema forbids unknown card fields.
    const required = ['name', 'description', 'version', 'capabilities', 'skills', 'supportedInterfaces'];
    const allowed = [
      ...required,
      'defaultInputModes',
      'defaultOutputModes',
      'securitySchemes',
      'securityRequirements',
      'signatures',
    ];
    expect(Object.keys(card).filter((key) => !allowed.includes(key))).toEqual([]);
    expect(required.filter((key) => !(key in card))).toEqual([]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: false });
    expect(card.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
      'JSONRPC 1.0',
      'HTTP+JSON 1.0',
      'GRPC 1.0',
      'JSONRPC 0.3',
    ]);
    expect(card.supportedInterfaces[2].url).toBe(harness.gateway.grpcAddress);
    // One gRPC server for all agents, picked by tenant (clients sending none reach the default).
    expect(card.supportedInterfaces[2].tenant).toBe('expense-approval');
    const echo = (await (await fetch(`${harness.gateway.url}/agents/echo/.well-known/agent-card.json`)).json()) as any;
    expect(echo.supportedInterfaces.find((i: any) => i.protocolBinding === 'GRPC')).toMatchObject({
      url: harness.gateway.grpcAddress,
      tenant: 'echo',
    });
  });

  it('answers GetExtendedAgentCard whether or not the agent has one', async () => {
    expect((await rpc('GetExtendedAgentCard', {})).error?.code).toBe(-32007);
    const extendedUrl = `${harness.gateway.url}/agents/test-extended`;
    const publicCard = (await (await fetch(`${extendedUrl}/.well-known/agent-card.json`)).json()) as any;
    expect(publicCard.capabilities.extendedAgentCard).toBe(true);
    expect(publicCard.skills.map((s: any) => s.id)).toEqual(['test']);
    const extended = await rpc('GetExtendedAgentCard', {}, V1, extendedUrl);
    expect(extended.result.skills.map((s: any) => s.id)).toEqual(['test', 'audit']);
  });

  it('serves the v0.3 card and the default agent at the root', async () => {
    const legacy = (await (await fetch(`${agentUrl}/v0.3/.well-known/agent-card.json`)).json()) as any;
    expect(legacy.protocolVersion).toBe('0.3');
    const root = (await (await fetch(`${harness.gateway.url}/.well-known/agent-card.json`)).json()) as any;
    expect(root.name).toBe('expense-approval');
    expect((await rpc('GetTask', { id: 'x' }, V1, `${harness.gateway.url}/`)).error?.code).toBe(-32001);
  });
});

describe('ListTasks', () => {
  it('lists a context’s tasks by state, with paging', async () => {
    const contextId = randomUUID();
    for (let i = 0; i < 3; i++) await send(EXPENSE_REQUEST, { contextId });
    let listed: any;
    const query = { contextId, status: 'TASK_STATE_INPUT_REQUIRED', pageSize: 2 };
    // Visibility is eventually consistent (seconds on a loaded machine).
    for (let attempt = 0; attempt < 150; attempt++) {
      listed = (await rpc('ListTasks', query)).result;
      if (listed?.totalSize === 3) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.totalSize).toBe(3);
    expect(listed.tasks).toHaveLength(2);
    expect(listed.tasks[0].artifacts).toBeUndefined();
    const next = (await rpc('ListTasks', { ...query, pageToken: listed.nextPageToken })).result;
    expect(next.tasks).toHaveLength(1);
    const empty = (await rpc('ListTasks', { contextId: randomUUID() })).result;
    expect(empty.tasks ?? []).toEqual([]);
  });

  it('over gRPC takes page_size 0, proto3’s "not set" that a2a-go always sends, as not given', async () => {
    const client = new grpc.Client(harness.gateway.grpcAddress!, grpc.credentials.createInsecure());
    const method = A2AService.listTasks;
    const version = new grpc.Metadata();
    version.set('a2a-version', '1.0');
    try {
      const answer = await new Promise<{ error: grpc.ServiceError | null; pageSize?: number }>((resolve) =>
        client.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          ListTasksRequest.fromJSON({ contextId: randomUUID(), pageSize: 0 }),
          version,
          { deadline: Date.now() + 10_000 },
          (error, response) => resolve({ error, pageSize: response?.pageSize }),
        ),
      );
      expect(answer).toEqual({ error: null, pageSize: 50 });
    } finally {
      client.close();
    }
  });

  it('without history answers each row from its summary memo: status and pending question, no extra reads', async () => {
    const contextId = randomUUID();
    const task = (await send(EXPENSE_REQUEST, { contextId })).result.task;
    let row: any;
    for (let attempt = 0; attempt < 50 && !row?.status?.message; attempt++) {
      row = (await rpc('ListTasks', { contextId, historyLength: 0 })).result?.tasks?.[0];
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(row.id).toBe(task.id);
    expect(row.status).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: task.status.message });
    expect(row.metadata.pendingQuestion.prompt).toBe(task.metadata.pendingQuestion.prompt);
    expect(row.history).toBeUndefined();
    // The full task has a timeline; the summary does not: this row came from the memo, not a read.
    expect(row.metadata.timeline).toBeUndefined();
  });
});
