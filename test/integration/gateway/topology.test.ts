/**
 * The gateway is stateless: tasks outlive gateway processes, any instance serves any task, and a
 * client whose gateway dies resubscribes elsewhere without losing or repeating an event.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import agents from '../../../examples/agents/index.js';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { OWNER_ATTRIBUTE } from '../../../src/protocol/search-attributes.js';
import { createAuthenticator } from '../../../src/gateway/auth/authenticator.js';
import { startGateway } from '../../../src/gateway/server.js';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';
import { sseRpc, stateOf } from '../../support/sse.js';

const harness = useGatewayHarness();
const processes: GatewayProcess[] = [];
afterAll(async () => {
  await Promise.all(processes.map((p) => p.kill('SIGKILL')));
});

async function gatewayProcess(): Promise<GatewayProcess> {
  const started = await startGatewayProcess(harness.worker.taskQueue);
  processes.push(started);
  return started;
}

function message(text: string, extra: Record<string, unknown> = {}) {
  return { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra } };
}

async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: any };
}

const PROXY_SECRET = 'the-proxy-secret-of-at-least-32-bytes';

describe('several gateways', () => {
  it('a stream on gateway A sees the completion caused by an answer through gateway B', async () => {
    const [a, b] = await Promise.all([gatewayProcess(), gatewayProcess()]);
    const waiting = (await rpc(`${a.url}/agents/expense-approval`, 'SendMessage', message(EXPENSE_REQUEST))).result
      .task;
    const events: any[] = [];
    const streamed = (async () => {
      for await (const event of sseRpc(`${a.url}/agents/expense-approval`, 'SubscribeToTask', { id: waiting.id })) {
        events.push(event);
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const answer = await rpc(
      `${b.url}/agents/expense-approval`,
      'SendMessage',
      message('approve', { taskId: waiting.id }),
    );
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await streamed;
    expect(stateOf(events[0])).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(events.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.some((e) => e.artifactUpdate?.artifact.name === 'approval-record')).toBe(true);
  });

  it('after a gateway dies mid-stream, another one resubscribes: snapshot, then the rest, nothing lost or repeated', async () => {
    // Both up before the stream starts (several gateways behind a load balancer): the client's
    // resubscribe then comes while the task still runs, however slowly a process starts on a loaded machine.
    const [first, second] = await Promise.all([gatewayProcess(), gatewayProcess()]);
    const sections = 5;
    const request = message('durability', { parts: [{ text: 'durability' }, { data: { sections, sectionMs: 1200 } }] });
    const url = (gateway: GatewayProcess) => `${gateway.url}/agents/long-report`;
    let taskId = '';
    const before: any[] = [];
    try {
      for await (const event of sseRpc(url(first), 'SendStreamingMessage', request)) {
        taskId ||= event.task?.id;
        before.push(event);
        if (event.artifactUpdate) await first.kill('SIGKILL'); // the process dies under the client
      }
    } catch {
      // the connection dropped with the process
    }
    expect(before.some((e) => e.artifactUpdate)).toBe(true);

    const after: any[] = [];
    for await (const event of sseRpc(url(second), 'SubscribeToTask', { id: taskId })) after.push(event);
    const snapshot = after[0].task;
    expect(snapshot.id).toBe(taskId);
    const chunks = [
      ...(snapshot.artifacts?.[0]?.parts ?? []),
      ...after.slice(1).flatMap((e) => e.artifactUpdate?.artifact.parts ?? []),
    ].map((part: any) => part.text);
    expect(chunks).toEqual(
      Array.from({ length: sections }, (_, i) => `Section ${i + 1} of the report on durability.\n`),
    );
    expect(after.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('across the wall', () => {
  it('a task canceled by an operator through Temporal shows canceled over A2A', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const waiting = (await rpc(url, 'SendMessage', message(EXPENSE_REQUEST))).result.task;
    await harness.temporal.workflow.getHandle(workflowIdForTask(waiting.id)).cancel();
    for (let attempt = 0; attempt < 50; attempt++) {
      const task = (await rpc(url, 'GetTask', { id: waiting.id })).result;
      if (task.status.state === 'TASK_STATE_CANCELED') return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the task never showed canceled');
  });

  it('a v0.3 client (message/send, no version header) completes the approval round trip', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const legacy = (text: string, taskId?: string) => ({
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...(taskId && { taskId }),
      },
    });
    const v03 = async (method: string, params: unknown) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return ((await response.json()) as any).result;
    };
    const waiting = await v03('message/send', legacy(EXPENSE_REQUEST));
    expect(waiting).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    const done = await v03('message/send', legacy('approve', waiting.id));
    expect(done).toMatchObject({ kind: 'task', id: waiting.id, status: { state: 'completed' } });
    expect((await v03('tasks/get', { id: waiting.id })).status.state).toBe('completed');
  });

  it('a task is reachable only through its own agent', async () => {
    const own = `${harness.gateway.url}/agents/expense-approval`;
    const other = `${harness.gateway.url}/agents/echo`;
    const waiting = (await rpc(own, 'SendMessage', message(EXPENSE_REQUEST))).result.task;
    expect((await rpc(other, 'GetTask', { id: waiting.id })).error?.code).toBe(-32001);
    expect((await rpc(other, 'SendMessage', message('approve', { taskId: waiting.id }))).error?.code).toBe(-32001);
    expect((await rpc(other, 'CancelTask', { id: waiting.id })).error?.code).toBe(-32001);
    expect((await rpc(own, 'GetTask', { id: waiting.id })).result.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('a stream ends with a terminal status when an operator terminates the workflow', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const waiting = (await rpc(url, 'SendMessage', message(EXPENSE_REQUEST))).result.task;
    const events: any[] = [];
    const streamed = (async () => {
      for await (const event of sseRpc(url, 'SubscribeToTask', { id: waiting.id })) events.push(event);
    })();
    await new Promise((r) => setTimeout(r, 300));
    await harness.temporal.workflow.getHandle(workflowIdForTask(waiting.id)).terminate('operator');
    await streamed;
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_FAILED');
  });

  it('refuses an oversized message before starting a task', async () => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const large = await rpc(url, 'SendMessage', message('x'.repeat(600 * 1024)));
    expect(large.error).toMatchObject({ code: -32602, message: expect.stringContaining('limit') });
  });

  it('behind an authenticating proxy, the owner and responder are the account it names, not what clients claim', async () => {
    const gateway = await startGateway({
      client: harness.temporal,
      agents,
      taskQueue: harness.worker.taskQueue,
      grpcPort: false,
      authenticator: createAuthenticator({
        methods: ['trusted-header'],
        apiKeys: [],
        trustedHeader: 'x-authenticated-user',
        trustedProxySecret: PROXY_SECRET,
      }),
    });
    try {
      const url = `${gateway.url}/agents/expense-approval`;
      const as = (user: string) => ({ 'x-authenticated-user': user, 'x-a2a-proxy-secret': PROXY_SECRET });
      const waiting = (await rpc(url, 'SendMessage', message(EXPENSE_REQUEST), as('alice'))).result.task;
      const claim = { taskId: waiting.id, metadata: { responder: 'mallory' } };
      // bob is neither the owner nor a listed approver: for him the task does not exist.
      expect((await rpc(url, 'SendMessage', message('approve', claim), as('bob'))).error.code).toBe(-32001);
      const done = (await rpc(url, 'SendMessage', message('approve', claim), as('alice'))).result.task;
      expect(done.artifacts[0].parts[0].data).toMatchObject({ decidedBy: 'alice' });
      const description = await harness.temporal.workflow.getHandle(workflowIdForTask(waiting.id)).describe();
      expect(description.typedSearchAttributes.get(OWNER_ATTRIBUTE)).toBe('alice');
      // Without the header, nobody: the request is refused before anything reaches Temporal.
      expect((await rpc(url, 'SendMessage', message(EXPENSE_REQUEST))).error?.message).toMatch(/authentication/i);
      // The header without the proxy's secret is a forgery (a client that bypassed the proxy).
      const forged = await rpc(url, 'SendMessage', message(EXPENSE_REQUEST), { 'x-authenticated-user': 'alice' });
      expect(forged.error?.message).toMatch(/invalid credentials/i);
    } finally {
      await gateway.close();
    }
  });
});
