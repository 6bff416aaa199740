/**
 * The webhook channel, reminders and the project-wide default, against a real local HTTP receiver:
 * notices are signed as push notifications are, arrive in order (question, reminder, expiry), once
 * each across continue-as-new, and a project default reaches questions that name no channel.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { taskQuery } from '../../../src/protocol/contract.js';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicJwks } from '../../../src/push/signing.js';
import type { NoticeState } from '../../../src/protocol/approvals.js';
import type { ApprovalSettings } from '../../../src/worker/agents-plugin.js';
import { bundleAgents } from '../../../src/worker/agents-bundle.js';
import { finalTask, reply, startTask, waitForState } from '../../support/tasks.js';
import { quietLogger, startTestWorker, TEST_AGENTS_MODULE, testClient, type TestWorker } from '../../support/worker.js';
import { Webhook, type Received } from '../../support/webhook.js';
import { eventually } from '../../support/mail-server.js';

let webhook: Webhook;
let hookUrl: string;
let signingKey: JWK;
let client: Client;

beforeAll(async () => {
  webhook = new Webhook();
  hookUrl = await webhook.start();
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  signingKey = { ...(await exportJWK(privateKey)), kid: 'approvals-1', alg: 'ES256' };
  client = await testClient();
});

afterAll(async () => {
  await client?.connection.close();
  await webhook?.close();
});

function settings(extra: Partial<ApprovalSettings> = {}): ApprovalSettings {
  return {
    directory: { principals: { dave: { webhook: `${hookUrl}?for=dave` } }, groups: {} },
    webhookUrl: hookUrl,
    publicUrl: 'https://approvals.example.com/',
    policy: { allowedHosts: new Set(['127.0.0.1']) },
    signingKey,
    ...extra,
  };
}

/** The notices of one task that the receiver accepted, in arrival order. */
function noticesOf(taskId: string): Received[] {
  return webhook.received.filter((received) => received.body.taskId === (taskId as unknown));
}

function field(received: Received, name: string): unknown {
  return (received.body as Record<string, unknown>)[name];
}

/** Waits until the task has recorded every notice as settled (sent or failed). */
async function afterNoticesSettled(handle: WorkflowHandle): Promise<void> {
  await eventually(async () => {
    const task = await handle.query(taskQuery, {});
    const notices = (task.metadata?.approverNotifications ?? []) as NoticeState[];
    return notices.every((notice) => notice.state !== 'pending');
  });
}

describe('the webhook channel', () => {
  let worker: TestWorker;
  beforeAll(async () => {
    worker = await startTestWorker(undefined, { approvals: settings() });
  });
  afterAll(() => worker?.shutdown());

  it('sends the question, a reminder before the deadline and its expiry, signed and in order', async () => {
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'Approve the vendor contract',
      data: {
        responders: ['dave'],
        notify: ['webhook'],
        deadline: '8 seconds',
        remind: ['5 seconds before'],
        onDeadline: { kind: 'answer', text: 'nobody answered' },
      },
    });
    const { task } = await finalTask(handle);
    expect(JSON.parse(task.status.message!.parts[0]!.text!)).toMatchObject({ timedOut: true });
    const received = noticesOf(taskId);
    expect(received.map((r) => field(r, 'kind'))).toEqual(['ask', 'reminder', 'expired']);
    const [ask] = received;
    expect(ask!.headers['content-type']).toBe('application/json');
    expect(ask!.body).toMatchObject({
      approver: 'dave',
      agent: 'test-ask',
      question: 'Your answer?',
      request: 'Approve the vendor contract',
      link: `https://approvals.example.com/inbox/task?agent=test-ask&id=${taskId}`,
    });
    expect(field(ask!, 'deadline')).toEqual(expect.any(String));
    // The approver's own webhook (the directory's), each notice under its own ID, signed over its body.
    for (const notice of received) {
      const id = notice.headers['x-a2a-notification-id'] as string;
      expect(id).toBe(field(notice, 'notificationId'));
      const jwt = notice.headers['x-a2a-notification-signature'] as string;
      const { payload } = await jwtVerify(jwt, createLocalJWKSet(publicJwks(signingKey)));
      expect(payload.jti).toBe(id);
      expect(payload.request_body_sha256).toBe(createHash('sha256').update(notice.raw).digest('hex'));
    }
    expect(new Set(received.map((r) => r.headers['x-a2a-notification-id'])).size).toBe(3);
    const recorded = (task.metadata?.approverNotifications as NoticeState[]).map(({ kind, state, to }) => ({
      kind,
      state,
      to,
    }));
    expect(recorded).toEqual([
      { kind: 'ask', state: 'sent', to: `webhook at ${new URL(hookUrl).host}` },
      { kind: 'reminder', state: 'sent', to: `webhook at ${new URL(hookUrl).host}` },
      { kind: 'expired', state: 'sent', to: `webhook at ${new URL(hookUrl).host}` },
    ]);
  });

  it('notifies each question of a long conversation once, across continue-as-new', async () => {
    const turns = 16;
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-chat', {
      text: 'chat',
      responder: 'erin',
      data: { turns, notify: ['webhook'] },
    });
    const firstRunId = (await handle.describe()).runId;
    for (let turn = 1; turn <= turns; turn++) {
      await waitForState(handle, 'input-required');
      // Answered once its notice arrived: every question's notice is sent, none skipped.
      await eventually(() => noticesOf(taskId).some((r) => field(r, 'question') === `Question ${turn}?`));
      await afterNoticesSettled(handle);
      await reply(handle, { text: `a${turn}`, responder: 'erin', messageId: `turn-${turn}` });
    }
    const { task } = await finalTask(handle);
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    const received = noticesOf(taskId);
    expect(received.map((r) => field(r, 'question'))).toEqual(
      Array.from({ length: turns }, (_, i) => `Question ${i + 1}?`),
    );
    expect(received.every((r) => field(r, 'approver') === 'erin' && field(r, 'kind') === 'ask')).toBe(true);
    expect(new Set(received.map((r) => r.headers['x-a2a-notification-id'])).size).toBe(turns);
    const recorded = task.metadata?.approverNotifications as NoticeState[];
    expect(recorded.filter((notice) => notice.state === 'sent')).toHaveLength(turns);
  });

  it('re-arms reminders after continue-as-new: each question gets its reminder once', async () => {
    const turns = 12;
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-chat', {
      text: 'chat',
      responder: 'erin',
      data: { turns, notify: ['webhook'], deadline: '1 minute', remind: ['58 seconds before'] },
    });
    const firstRunId = (await handle.describe()).runId;
    const sent = (turn: number, kind: string) =>
      noticesOf(taskId).filter((r) => field(r, 'question') === `Question ${turn}?` && field(r, 'kind') === kind);
    for (let turn = 1; turn <= turns; turn++) {
      await waitForState(handle, 'input-required');
      // The reminder comes 2 s after the question; the run that sent the question may have continued as new since.
      await eventually(() => sent(turn, 'reminder').length > 0);
      await afterNoticesSettled(handle);
      await reply(handle, { text: `a${turn}`, responder: 'erin', messageId: `turn-${turn}` });
    }
    await finalTask(handle);
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    for (let turn = 1; turn <= turns; turn++) {
      expect([sent(turn, 'ask').length, sent(turn, 'reminder').length]).toEqual([1, 1]);
    }
  });

  it('tells of each answer with its own question, though the next one is asked before it is sent', async () => {
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-chat', {
      text: 'chat',
      responder: 'erin',
      data: { turns: 2, notify: ['webhook'] },
    });
    for (let turn = 1; turn <= 2; turn++) {
      await waitForState(handle, 'input-required');
      await eventually(() => noticesOf(taskId).some((r) => field(r, 'question') === `Question ${turn}?`));
      // Someone else answers (no responders: the requester is told, anyone may answer without authentication).
      await reply(handle, { text: `a${turn}`, responder: 'zoe', messageId: `turn-${turn}` });
    }
    await finalTask(handle);
    const told = noticesOf(taskId).map((r) => [field(r, 'kind'), field(r, 'question'), field(r, 'answeredBy') ?? '']);
    expect(told.filter(([kind]) => kind === 'answered')).toEqual([
      ['answered', 'Question 1?', 'zoe'],
      ['answered', 'Question 2?', 'zoe'],
    ]);
  });

  it('fails a task whose question names a channel that does not exist, saying which', async () => {
    const { handle } = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'x',
      data: { responders: ['dave'], notify: ['sms'] },
    });
    const { task } = await finalTask(handle);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts[0]?.text).toBe(
      'ask: unknown notify channel "sms" (known: email, webhook, slack)',
    );
  });

  it('says in the task when a group is not in the directory', async () => {
    const { handle } = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'x',
      data: { responders: ['group:nobody'], notify: ['webhook'], deadline: '1 hour' },
    });
    const task = await eventually(async () => {
      const current = await waitForState(handle, 'input-required');
      const recorded = (current.metadata?.approverNotifications ?? []) as NoticeState[];
      return recorded.length > 0 && current;
    });
    expect(task.metadata?.approverNotifications).toMatchObject([
      { approver: 'group:nobody', state: 'failed', reason: 'group:nobody is not in the approver directory' },
    ]);
    await handle.terminate('test done');
  });
});

describe('the project-wide default', () => {
  let worker: TestWorker;
  beforeAll(async () => {
    // A bundle of its own: the defaults are part of the workflow code (agents-bundle.ts).
    const workflowBundle = await bundleAgents(TEST_AGENTS_MODULE, { logger: quietLogger }, { notify: ['webhook'] });
    worker = await startTestWorker(undefined, { approvals: settings({ notify: ['webhook'] }), workflowBundle });
  });
  afterAll(() => worker?.shutdown());

  it('reaches questions that name no channel; `notify: []` opts out', async () => {
    const asked = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'default',
      data: { responders: ['dave'] },
    });
    await waitForState(asked.handle, 'input-required');
    await eventually(() => noticesOf(asked.taskId).length === 1);
    await reply(asked.handle, { text: 'ok', responder: 'dave' });
    await finalTask(asked.handle);
    expect(noticesOf(asked.taskId).map((r) => field(r, 'kind'))).toEqual(['ask']);

    const silent = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'opted out',
      data: { responders: ['dave'], notify: [] },
    });
    await waitForState(silent.handle, 'input-required');
    await reply(silent.handle, { text: 'ok', responder: 'dave' });
    const { task } = await finalTask(silent.handle);
    expect(noticesOf(silent.taskId)).toEqual([]);
    expect(task.metadata?.approverNotifications).toBeUndefined();
  });
});
