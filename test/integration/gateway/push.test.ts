/**
 * Durable push notifications: configs on every transport, stored with the task; deliveries in
 * order with event IDs and the token header; a webhook that answers 503 for a while (across a
 * worker restart) still gets every notification once, in order; SSRF refusals.
 */
import { TaskState, type Task } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { createHash } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsQuery, workflowIdForTask } from '../../../src/protocol/contract.js';
import { expenseApproval } from '../../../examples/agents/expense-approval.js';
import exampleAgents from '../../../examples/agents/index.js';
import { selectivePushAgent } from '../../support/agents/test-agents.js';
import { startGateway } from '../../../src/gateway/server.js';
import { Webhook, type Received } from '../../support/webhook.js';
import { startTestWorker, type TestWorker } from '../../support/worker.js';
import { EXPENSE_REQUEST, useGatewayHarness, userMessage, type Transport } from '../../support/gateway-harness.js';
import { readSettings, type Settings } from '../../../src/config/settings.js';
import { pushUrlPolicyFromEnv } from '../../../src/push/url-policy.js';

let webhook: Webhook;
let hookUrl: string;
/** The worker that replaces the harness's after the restart test stopped it. */
let replacement: TestWorker | undefined;
/** Both the gateway (save time, JWKS) and the worker (send time, signing) take them. */
let settings: Settings;

beforeAll(async () => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  settings = readSettings({
    A2A_PUSH_ALLOWED_HOSTS: '127.0.0.1',
    A2A_PUSH_SIGNING_KEY: JSON.stringify({ ...(await exportJWK(privateKey)), kid: 'push-1', alg: 'ES256' }),
  });
  webhook = new Webhook();
  hookUrl = await webhook.start();
});
// After the settings above, as the `gateway` and `worker` commands hand them down.
const harness = useGatewayHarness(() => ({
  gateway: {
    agents: [...exampleAgents, selectivePushAgent],
    pushUrlPolicy: pushUrlPolicyFromEnv(settings),
    pushSigningKey: settings.A2A_PUSH_SIGNING_KEY!,
  },
  settings,
}));

afterAll(async () => {
  await replacement?.shutdown();
  await webhook?.close();
});

const asTask = (result: unknown) => result as Task;

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a webhook saw of one task: "status:<state>" and "artifact:<id>" in arrival order. */
function kinds(received: Received[]): string[] {
  return received.map(({ body }) =>
    body.statusUpdate
      ? `status:${(body.statusUpdate.status as { state: string }).state}`
      : `artifact:${(body.artifactUpdate!.artifact as { artifactId: string }).artifactId}`,
  );
}

/** The task's own event log, as webhooks should see it: every status after `submitted`, and every artifact. */
async function eventsOf(taskId: string): Promise<string[]> {
  const handle = harness.temporal.workflow.getHandle(workflowIdForTask(taskId));
  const { events } = await handle.query(eventsQuery, 0);
  return events.flatMap((event) => {
    if (event.kind === 'artifact') return [`artifact:${event.artifact.artifactId}`];
    if (event.kind === 'status' && event.status.state !== 'TASK_STATE_SUBMITTED')
      return [`status:${event.status.state}`];
    return [];
  });
}

describe.each<Transport>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('push configs over %s', (transport) => {
  it('creates, gets, lists and deletes configs of a task (twice deleting is fine)', async () => {
    const client = await harness.a2a(transport);
    const task = asTask(await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never));
    const created = await client.createTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      id: 'hook-1',
      url: hookUrl,
      token: 'secret-token',
      authentication: undefined,
    });
    // The token is for deliveries: it reads back redacted.
    expect(created).toMatchObject({ id: 'hook-1', taskId: task.id, url: hookUrl, token: '[redacted]' });
    const fetched = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
    expect(fetched.url).toBe(hookUrl);
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.id)).toEqual(['hook-1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
    await expect(
      client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      client.listTaskPushNotificationConfig({ tenant: '', taskId: 'no-such-task', pageSize: 0, pageToken: '' }),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('keeps configs created after the task finished', async () => {
    const client = await harness.a2a(transport);
    const first = asTask(await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never));
    const done = asTask(await client.sendMessage({ message: userMessage('approve', { taskId: first.id }) } as never));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await client.createTaskPushNotificationConfig({
      tenant: '',
      taskId: done.id,
      id: 'late',
      url: 'https://example.com/hook',
      token: '',
      authentication: undefined,
    });
    const fetched = await client.getTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'late' });
    expect(fetched.url).toBe('https://example.com/hook');
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: done.id, id: 'late' });
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: done.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs).toEqual([]);
  });
});

describe('push configs and gateways', () => {
  it('are served by a gateway started after they were saved (they live in the task, not the gateway)', async () => {
    const client = await harness.a2a('HTTP+JSON');
    const task = asTask(await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never));
    await client.createTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      id: 'kept',
      url: hookUrl,
      token: '',
      authentication: undefined,
    });
    const another = await startGateway({
      client: harness.temporal,
      agents: [expenseApproval],
      taskQueue: harness.worker.taskQueue,
      pushUrlPolicy: pushUrlPolicyFromEnv(settings),
    });
    try {
      const response = await fetch(
        `${another.url}/agents/expense-approval/rest/tasks/${task.id}/pushNotificationConfigs`,
        {
          headers: { 'A2A-Version': '1.0' },
        },
      );
      const listed = (await response.json()) as { configs: Array<{ id: string }> };
      expect(listed.configs.map((c) => c.id)).toEqual(['kept']);
    } finally {
      await another.close();
    }
  });
});

describe('push delivery', () => {
  it('posts every status change and artifact in order, with IDs, token and authorization', async () => {
    const client = await harness.a2a('JSONRPC');
    const config = {
      tenant: '',
      taskId: '',
      id: 'inline',
      url: hookUrl,
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'cred' },
    };
    const first = asTask(
      await client.sendMessage({
        message: userMessage(EXPENSE_REQUEST),
        configuration: { taskPushNotificationConfig: config },
      } as never),
    );
    await client.sendMessage({ message: userMessage('approve', { taskId: first.id }) } as never);
    await waitFor(() => kinds(webhook.forTask(first.id)).includes('status:TASK_STATE_COMPLETED'));
    const received = webhook.forTask(first.id);
    expect(kinds(received)).toEqual(await eventsOf(first.id));
    // The approval record is an artifact: it arrives between the last question's answer and `completed`.
    expect(kinds(received).slice(-2)[0]).toMatch(/^artifact:/);
    const seqs = received.map((r) => Number(String(r.headers['x-a2a-notification-id']).split(':')[1]));
    expect(received.every((r) => String(r.headers['x-a2a-notification-id']).startsWith(`${first.id}:`))).toBe(true);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(received[0]!.headers['x-a2a-notification-token']).toBe('tok');
    expect(received[0]!.headers.authorization).toBe('Bearer cred');
    expect(received[0]!.headers['content-type']).toBe('application/a2a+json');
    // The Temporal UI names each delivery by its notification and the webhook's host (a path may hold a secret).
    const history = await harness.temporal.workflow.getHandle(workflowIdForTask(first.id)).fetchHistory();
    const summaries = history
      .events!.filter((event) => event.activityTaskScheduledEventAttributes)
      .map((event) => defaultPayloadConverter.fromPayload(event.userMetadata!.summary!));
    expect(summaries).toContain(`push ${first.id}:${seqs[0]} to ${new URL(hookUrl).host}`);
    expect(summaries.filter((summary) => String(summary).includes('/hook'))).toEqual([]);
    // `tasks show` tells how deliveries stand (from the task's metadata); the last one settles just after its POST.
    const deliveries = async () =>
      asTask(await client.getTask({ tenant: '', id: first.id, historyLength: 0 })).metadata?.pushNotifications;
    await expect
      .poll(deliveries)
      .toEqual([expect.objectContaining({ id: 'inline', url: hookUrl, delivered: received.length, pending: 0 })]);
  });

  it('notifies only the events the agent selects (pushEvents)', async () => {
    const client = await harness.a2a('JSONRPC', 'test-push-selected');
    const config = { tenant: '', taskId: '', id: 'selected', url: hookUrl, token: '' };
    const asked = asTask(
      await client.sendMessage({
        message: userMessage('Start'),
        configuration: { taskPushNotificationConfig: config },
      } as never),
    );
    const done = asTask(await client.sendMessage({ message: userMessage('yes', { taskId: asked.id }) } as never));
    expect(done.artifacts).toHaveLength(1);
    await waitFor(() => kinds(webhook.forTask(asked.id)).includes('status:TASK_STATE_COMPLETED'));
    expect((await eventsOf(asked.id)).length).toBeGreaterThan(3);
    expect(kinds(webhook.forTask(asked.id))).toEqual([
      'status:TASK_STATE_INPUT_REQUIRED',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('retries every notification whose first attempt failed, the next ones as much as the first', async () => {
    const client = await harness.a2a('JSONRPC');
    webhook.failingFirstAttempts = true;
    try {
      const config = { tenant: '', taskId: '', id: 'blips', url: hookUrl, token: '' };
      const task = asTask(
        await client.sendMessage({
          message: userMessage(EXPENSE_REQUEST),
          configuration: { taskPushNotificationConfig: config },
        } as never),
      );
      await waitFor(() => kinds(webhook.forTask(task.id)).includes('status:TASK_STATE_INPUT_REQUIRED'));
      const delivered = webhook.forTask(task.id).map((r) => r.headers['x-a2a-notification-id']);
      const refusedOnce = webhook.forTask(task.id, webhook.refused).map((r) => r.headers['x-a2a-notification-id']);
      expect(kinds(webhook.forTask(task.id))).toEqual(await eventsOf(task.id));
      expect(refusedOnce).toEqual(delivered);
      expect(delivered.length).toBeGreaterThan(1);
    } finally {
      webhook.failingFirstAttempts = false;
    }
  });

  it('a config deleted and created again while a notification is under way keeps its own queue whole', async () => {
    const client = await harness.a2a('JSONRPC');
    const config = { tenant: '', taskId: '', id: 'swapped', url: hookUrl, token: '' };
    webhook.hanging = true;
    try {
      const task = asTask(
        await client.sendMessage({
          message: userMessage(EXPENSE_REQUEST),
          configuration: { taskPushNotificationConfig: config },
        } as never),
      );
      await waitFor(() => webhook.forTask(task.id, webhook.hung).length > 0);
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'swapped' });
      await client.createTaskPushNotificationConfig({ ...config, taskId: task.id, authentication: undefined });
      const done = asTask(await client.sendMessage({ message: userMessage('approve', { taskId: task.id }) } as never));
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The deleted config's delivery fails now; the new config's queue (the answer on) is not touched by it.
      webhook.hanging = false;
      webhook.dropHung();
      await waitFor(() => kinds(webhook.forTask(task.id)).includes('status:TASK_STATE_COMPLETED'));
      const expected = (await eventsOf(task.id)).slice(-3);
      expect(expected[0]).toBe('status:TASK_STATE_WORKING');
      const received = webhook.forTask(task.id);
      expect(kinds(received)).toEqual(expected);
      // Those very events (by sequence number), not the deleted config's held one sent again.
      const { events } = await harness.temporal.workflow.getHandle(workflowIdForTask(task.id)).query(eventsQuery, 0);
      const lastSeqs = events
        .filter((event) => event.kind !== 'message')
        .slice(-3)
        .map((event) => `${task.id}:${event.seq}`);
      expect(received.map((r) => r.headers['x-a2a-notification-id'])).toEqual(lastSeqs);
    } finally {
      webhook.hanging = false;
    }
  });

  it('delivers everything once, in order, to a webhook down for a while, across a worker restart', async () => {
    const client = await harness.a2a('HTTP+JSON');
    webhook.failing = true;
    const first = asTask(
      await client.sendMessage({
        message: userMessage(EXPENSE_REQUEST),
        configuration: {
          taskPushNotificationConfig: { tenant: '', taskId: '', id: 'flaky', url: hookUrl, token: '' },
        },
      } as never),
    );
    // A dead webhook does not hold the task back.
    const done = asTask(await client.sendMessage({ message: userMessage('approve', { taskId: first.id }) } as never));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Three attempts of its first notification refused (the second 1 s after the first, the third 1 s later) before the worker goes.
    await waitFor(() => webhook.forTask(first.id, webhook.refused).length >= 3);
    // While it is retried, the task says how its deliveries stand and why they fail (`tasks show`).
    const { metadata } = asTask(await client.getTask({ tenant: '', id: first.id, historyLength: 0 }));
    expect(metadata?.pushNotifications).toEqual([
      expect.objectContaining({
        id: 'flaky',
        delivered: 0,
        pending: expect.any(Number),
        lastFailure: { at: expect.any(String), reason: 'The webhook answered 503: down for maintenance' },
      }),
    ]);
    await harness.worker.shutdown();
    try {
      replacement = await startTestWorker(harness.worker.taskQueue, { settings });
      webhook.failing = false;
      await waitFor(() => kinds(webhook.forTask(first.id)).includes('status:TASK_STATE_COMPLETED'), 60_000);
      const received = webhook.forTask(first.id);
      const ids = received.map((r) => r.headers['x-a2a-notification-id']);
      expect(new Set(ids).size).toBe(ids.length);
      expect(kinds(received)).toEqual(await eventsOf(first.id));
      const seqs = ids.map((id) => Number(String(id).split(':')[1]));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    } finally {
      webhook.failing = false;
    }
  }, 120_000);
});

describe('signed notifications', () => {
  it('verify against the JWKS the card names; a tampered body does not match', async () => {
    const card = (await (
      await fetch(`${harness.gateway.url}/agents/expense-approval/.well-known/agent-card.json`)
    ).json()) as {
      capabilities: { extensions?: Array<{ uri: string; params: { jwksUrl: string } }> };
    };
    const extension = card.capabilities.extensions?.find((e) => e.uri === 'urn:a2a-temporal:push-signing:v1');
    const jwks = (await (await fetch(extension!.params.jwksUrl)).json()) as Parameters<typeof createLocalJWKSet>[0];
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    const client = await harness.a2a('JSONRPC');
    const first = asTask(
      await client.sendMessage({
        message: userMessage(EXPENSE_REQUEST),
        configuration: {
          taskPushNotificationConfig: { tenant: '', taskId: '', id: 'signed', url: hookUrl, token: '' },
        },
      } as never),
    );
    await waitFor(() => webhook.forTask(first.id).length > 0);
    const [notification] = webhook.forTask(first.id);
    const { payload } = await jwtVerify(
      String(notification!.headers['x-a2a-notification-signature']),
      createLocalJWKSet(jwks),
    );
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    expect(payload.request_body_sha256).toBe(sha256(notification!.raw));
    expect(payload.jti).toBe(notification!.headers['x-a2a-notification-id']);
    const tampered = Buffer.from(notification!.raw.toString().replace('TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'));
    expect(payload.request_body_sha256).not.toBe(sha256(tampered));
  });
});

describe('push config limits', () => {
  it('keeps at most 10 configs per task; replacing one is always fine', async () => {
    const client = await harness.a2a('JSONRPC');
    const task = asTask(await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never));
    const config = (id: string) => ({
      tenant: '',
      taskId: task.id,
      id,
      url: hookUrl,
      token: '',
      authentication: undefined,
    });
    for (let i = 0; i < 10; i++) await client.createTaskPushNotificationConfig(config(`hook-${i}`));
    await expect(client.createTaskPushNotificationConfig(config('one-too-many'))).rejects.toBeInstanceOf(
      RequestMalformedError,
    );
    await client.createTaskPushNotificationConfig({ ...config('hook-3'), url: `${hookUrl}?replaced` });
    const fetched = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-3' });
    expect(fetched.url).toBe(`${hookUrl}?replaced`);
  });
});

describe('webhook URLs (SSRF guard)', () => {
  it.each([
    'ftp://example.com/hook',
    'http://user:pass@example.com/hook',
    'http://localhost:9/hook',
    'http://127.0.0.2/hook',
    'http://0x7f000002/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:192.168.0.1]/hook',
    'http://[fe80::1]/hook',
    'http://[::1]/hook',
    'not a url',
  ])('refuses %s', async (url) => {
    const client = await harness.a2a('JSONRPC');
    const task = asTask(await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never));
    await expect(
      client.createTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        id: 'x',
        url,
        token: '',
        authentication: undefined,
      }),
    ).rejects.toBeInstanceOf(RequestMalformedError);
    await expect(
      client.sendMessage({
        message: userMessage(EXPENSE_REQUEST),
        configuration: { taskPushNotificationConfig: { tenant: '', taskId: '', id: 'x', url, token: '' } },
      } as never),
    ).rejects.toBeInstanceOf(RequestMalformedError);
  });
});
