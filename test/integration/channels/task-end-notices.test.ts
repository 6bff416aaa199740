/**
 * A task that ends while its question waits tells the approvers who were told of it (release 6):
 * canceled by A2A CancelTask or from the Temporal UI, or failed. The mail arrives on a real SMTP
 * server, the webhook on a local receiver, the Slack message is updated without its buttons; the
 * approver keeps seeing the task, and the mailed Approve link, opened in Chromium, says the task
 * was canceled.
 */
import type { Client } from '@temporalio/client';
import type { Browser } from 'playwright-core';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpSender, smtpSettingsFromEnv } from '../../../src/channels/email.js';
import { slackSettingsFromEnv } from '../../../src/channels/slack.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/server.js';
import type { NoticeState } from '../../../src/protocol/approvals.js';
import { taskQuery } from '../../../src/protocol/contract.js';
import { askingAgent } from '../../support/agents/test-agents.js';
import { browserAvailable, launchBrowser } from '../../support/browser.js';
import { cancelTask, finalTask, startTask } from '../../support/tasks.js';
import { Webhook, type Received } from '../../support/webhook.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';
import { eventually, MailServer, smtpEnv } from '../../support/mail-server.js';
import { BOT_TOKEN, SlackStandIn } from '../../support/slack-stand-in.js';
import { readSettings } from '../../../src/config/settings.js';

const SECRET = Buffer.from(randomBytes(32).toString('base64url'));
const BUYER = { id: 'buyer', groups: [] };

let mail: MailServer;
let webhook: Webhook;
let slack: SlackStandIn;
let gateway: RunningGateway;
let worker: TestWorker;
let client: Client;
let browser: Browser | undefined;

beforeAll(async () => {
  mail = new MailServer();
  const smtpPort = await mail.start();
  webhook = new Webhook();
  const hookUrl = await webhook.start();
  slack = new SlackStandIn();
  const slackBase = await slack.start();
  const directory = {
    principals: {
      alice: { email: 'alice@example.com', webhook: `${hookUrl}?for=alice`, slack: 'U0ALICE1' },
      carl: { email: 'carl@example.com' },
    },
    groups: {},
  };
  client = await testClient();
  const taskQueue = `test-task-end-${randomUUID()}`;
  gateway = await startGateway({
    client,
    agents: [askingAgent],
    taskQueue,
    host: '127.0.0.1',
    port: 0,
    grpcPort: false,
    answerLinks: { secret: SECRET, directory },
  });
  worker = await startTestWorker(taskQueue, {
    approvals: {
      directory,
      sendEmail: smtpSender(smtpSettingsFromEnv(readSettings(smtpEnv(smtpPort)))!),
      policy: { allowedHosts: new Set(['127.0.0.1']) },
      slack: slackSettingsFromEnv(
        readSettings({
          A2A_SLACK_BOT_TOKEN: BOT_TOKEN,
          A2A_SLACK_API_URL: `${slackBase}/api`,
          A2A_SLACK_INTERACTIVE: 'true',
        }),
      )!,
      publicUrl: gateway.url,
      answerLinks: { secret: SECRET, ttlMs: 60 * 60 * 1000 },
    },
  });
  if (browserAvailable()) browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await worker?.shutdown();
  await gateway?.close();
  await client?.connection.close();
  await slack?.close();
  await webhook?.close();
  await mail?.close();
});

function noticesOf(task: { metadata?: Record<string, unknown> }): NoticeState[] {
  return (task.metadata?.approverNotifications ?? []) as NoticeState[];
}

function webhookNotices(taskId: string): Array<Received['body']> {
  return webhook.received.map((received) => received.body).filter((body) => body.taskId === (taskId as unknown));
}

/** A task owned by the buyer whose question waits for `approver`, once every question was sent. */
async function waitingTask(approver: string, notify: string[], extra: Record<string, unknown> = {}) {
  const started = await startTask(client, worker.taskQueue, 'test-ask', {
    text: 'Buy 3 monitors for 450 EUR',
    caller: BUYER,
    data: { responders: [approver], notify, deadline: '1 hour', ...extra },
  });
  await eventually(async () => {
    const notices = noticesOf(await started.handle.query(taskQuery, {}));
    return notices.length === notify.length && notices.every((notice) => notice.state === 'sent');
  });
  return started;
}

/** What the task recorded of its notices: kind, channel, state. */
function recorded(task: { metadata?: Record<string, unknown> }): string[] {
  return noticesOf(task).map(({ kind, channel, state }) => `${kind} ${channel} ${state}`);
}

describe('approvers hear that the task ended while their question waited', () => {
  it('canceled by CancelTask: a mail, a webhook notice, the Slack message updated without buttons; the mailed link says so in Chromium', async () => {
    const { taskId, handle } = await waitingTask('alice', ['email', 'webhook', 'slack']);
    const [asked] = mail.to('alice@example.com');
    const approveLink = /^Approve: (\S+)$/m.exec(asked!.mail.text ?? '')?.[1];
    expect(approveLink).toBeDefined();
    const posted = slack.calls.find((call) => call.body.channel === 'U0ALICE1');
    expect(JSON.stringify(posted!.body.blocks)).toContain('a2a_approve');

    await cancelTask(client, taskId, { caller: BUYER, reason: 'Bought elsewhere' });
    const { task, status } = await finalTask(handle);
    expect(status).toBe('CANCELLED');
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    expect(recorded(task)).toEqual([
      'ask email sent',
      'ask webhook sent',
      'ask slack sent',
      'canceled email sent',
      'canceled webhook sent',
      'canceled slack sent',
    ]);
    expect(noticesOf(task).filter((notice) => notice.kind === 'canceled')[0]?.outcome).toBe('Bought elsewhere');
    // Alice keeps seeing the task she was asked about: the note's link and her answer link show it.
    expect(task.metadata?.participants).toEqual(['alice']);

    const note = mail.to('alice@example.com')[1]!;
    expect(note.mail.subject).toBe('Task canceled, no answer needed: Your answer?');
    expect(note.mail.text).toContain("The test-ask agent's task was canceled while this question waited");
    expect(note.mail.text).toContain('Why: Bought elsewhere');
    expect(note.mail.text).not.toContain('/inbox/answer');

    const hooked = webhookNotices(taskId);
    expect(hooked.map((body) => body.kind)).toEqual(['ask', 'canceled']);
    expect(hooked[1]).toMatchObject({ approver: 'alice', outcome: 'Bought elsewhere', question: 'Your answer?' });

    // The message that asked is updated in place (its conversation and ts), its buttons gone.
    const updates = slack.calls.filter((call) => call.path === '/api/chat.update');
    expect(updates).toHaveLength(1);
    const updated = updates[0]!;
    expect(slack.posted.has(`${updated.body.channel} ${updated.body.ts}`)).toBe(true);
    expect(updated.body.text).toBe('Task canceled, no answer needed: Your answer?');
    const blocks = JSON.stringify(updated.body.blocks);
    expect(blocks).not.toContain('a2a_approve');
    expect(blocks).not.toContain('a2a_deny');
    expect(blocks).toContain('See the task');

    if (!browser) return;
    const page = await browser.newPage();
    try {
      await page.goto(approveLink!);
      await expect.poll(() => page.locator('main').textContent()).toContain('This task was canceled');
      expect(await page.locator('form').count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('canceled from the Temporal UI (a cancel request): the approver hears it too', async () => {
    const { taskId, handle } = await waitingTask('carl', ['email']);
    await handle.cancel();
    const { status } = await finalTask(handle);
    expect(status).toBe('CANCELLED');
    const note = await eventually(() => mail.to('carl@example.com')[1]);
    expect(note.mail.subject).toBe('Task canceled, no answer needed: Your answer?');
    expect(note.mail.text).toContain('Why: Canceled from Temporal');
    expect(note.mail.text).toContain(`${gateway.url}/inbox/task?agent=test-ask&id=${taskId}`);
  });

  it('failed while the question waited: by mail and by webhook, saying why', async () => {
    const { taskId, handle } = await waitingTask('alice', ['email', 'webhook'], { failAfter: '2 seconds' });
    const { task, status } = await finalTask(handle);
    expect(status).toBe('FAILED');
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(recorded(task)).toEqual(['ask email sent', 'ask webhook sent', 'failed email sent', 'failed webhook sent']);
    const hooked = webhookNotices(taskId);
    expect(hooked.map((body) => body.kind)).toEqual(['ask', 'failed']);
    expect(hooked[1]).toMatchObject({
      outcome: 'The budget check failed meanwhile',
      subject: 'Task failed, no answer needed: Your answer?',
    });
    const mailed = mail.to('alice@example.com').filter((received) => received.mail.text?.includes(taskId));
    expect(mailed.map((received) => received.mail.subject)).toEqual([
      'Approval needed: Your answer?',
      'Task failed, no answer needed: Your answer?',
    ]);
    expect(mailed[1]!.mail.text).toContain('Why: The budget check failed meanwhile');
  });
});
