/** A retried first message (same Idempotency-Key) reaches the same task, on every transport. */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Message } from '@a2a-js/sdk';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';

const harness = useGatewayHarness();

function message(text: string, messageId = randomUUID()) {
  return { messageId, role: 'ROLE_USER', parts: [{ text }] };
}

async function send(agent: string, body: object, key?: string, returnImmediately = false) {
  const response = await fetch(`${harness.gateway.url}/agents/${agent}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      ...(key !== undefined && { 'idempotency-key': key }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: body, ...(returnImmediately && { configuration: { returnImmediately } }) },
    }),
  });
  return (await response.json()) as any;
}

/** A new task's first message with a key, as a raw JSON-RPC or HTTP+JSON client sends it; answers the task. */
async function sendOver(transport: 'JSON-RPC' | 'HTTP+JSON', body: object, key: string) {
  if (transport === 'JSON-RPC') return (await send('expense-approval', body, key)).result.task;
  const response = await fetch(`${harness.gateway.url}/agents/expense-approval/rest/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'idempotency-key': key },
    body: JSON.stringify({ message: body }),
  });
  return ((await response.json()) as any).task;
}

describe('Idempotency-Key', () => {
  it('makes concurrent and later resends of a first message one task', async () => {
    const key = randomUUID();
    const first = message(EXPENSE_REQUEST);
    const answers = await Promise.all([1, 2, 3].map(() => send('expense-approval', first, key, true)));
    const ids = new Set(answers.map((answer) => answer.result.task.id));
    expect(ids.size).toBe(1);
    const [taskId] = ids;
    await expect
      .poll(async () => (await send('expense-approval', first, key)).result.task.status.state, { timeout: 20_000 })
      .toBe('TASK_STATE_INPUT_REQUIRED');
    const task = await (await harness.a2a('JSONRPC')).getTask({ id: taskId! } as any);
    expect(task.history.filter((entry) => entry.role === 1 /* ROLE_USER */)).toHaveLength(1);
    console.log(`3 concurrent + 1 later resend with one key: ${ids.size} task, 1 user message`);
  });

  it('returns an ended task as it ended', async () => {
    const key = randomUUID();
    const first = message('hello');
    const done = await send('echo', first, key);
    expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await send('echo', first, key);
    expect(again.result.task).toMatchObject({ id: done.result.task.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('refuses the key with another message, running or ended', async () => {
    for (const [agent, text] of [
      ['expense-approval', EXPENSE_REQUEST],
      ['echo', 'hello'],
    ] as const) {
      const key = randomUUID();
      const started = await send(agent, message(text), key);
      const reused = await send(agent, message('something else'), key);
      expect(reused.error.message).toContain(`already started task ${started.result.task.id} with another message`);
    }
  });

  it('scopes keys to the agent; no key keeps every send a new task; a bad key is refused', async () => {
    const key = randomUUID();
    const echo = await send('echo', message('hello'), key);
    const other = await send('long-report', message('quarterly report'), key, true);
    expect(other.result.task.id).not.toBe(echo.result.task.id);
    const same = message('hello');
    const [a, b] = [await send('echo', same), await send('echo', same)];
    expect(a.result.task.id).not.toBe(b.result.task.id);
    const bad = await send('echo', message('hello'), 'has spaces and ü');
    expect(bad.error.message).toMatch(/Idempotency-Key must be/);
  });

  it('knows a first message resent over gRPC after JSON-RPC or HTTP+JSON as the same message', async () => {
    // One A2A message as two encodings give it: a JSON client writes its objects' keys in its own
    // order and may send an empty metadata object; protobuf Structs have no key order (a Go client
    // sends them in a random one) and a gRPC client leaves an empty one out.
    const asJson = [
      { text: EXPENSE_REQUEST, metadata: {} },
      { data: { amount: 120, currency: 'USD', team: { name: 'core', size: 5 } }, metadata: { source: 'form', v: 2 } },
    ];
    const asGrpc = [
      { text: EXPENSE_REQUEST },
      { data: { team: { size: 5, name: 'core' }, currency: 'USD', amount: 120 }, metadata: { v: 2, source: 'form' } },
    ];
    for (const first of ['JSON-RPC', 'HTTP+JSON'] as const) {
      const key = randomUUID();
      const messageId = randomUUID();
      const started = await sendOver(first, { messageId, role: 'ROLE_USER', parts: asJson }, key);
      expect(started.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const grpc = await harness.a2a('GRPC', 'expense-approval');
      const request = {
        message: Message.fromJSON({ messageId, role: 'ROLE_USER', parts: asGrpc }),
        tenant: 'expense-approval',
      } as any;
      const retried = await grpc.sendMessage(request, { serviceParameters: { 'idempotency-key': key } });
      expect({ first, id: (retried as any).id }).toEqual({ first, id: started.id });
    }
  });

  it('travels as an HTTP header on HTTP+JSON and as metadata on gRPC', async () => {
    for (const transport of ['HTTP+JSON', 'GRPC'] as const) {
      const client = await harness.a2a(transport, 'echo');
      const key = randomUUID();
      const request = { message: Message.fromJSON(message('hello')), tenant: 'echo' } as any;
      const options = { serviceParameters: { 'idempotency-key': key } };
      const [one, two] = [await client.sendMessage(request, options), await client.sendMessage(request, options)];
      expect((two as any).id).toBe((one as any).id);
    }
  });
});
