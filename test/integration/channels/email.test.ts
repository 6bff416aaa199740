/**
 * The email channel end to end: a task's question reaches its approvers (a group expanded by the
 * directory) as mail on a real SMTP server, once each, with the question, the request, the deadline
 * and the inbox link; the others hear who answered; a mail server down for a while gets each
 * message once when it is back; addresses stay out of the task and its history.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpSender, smtpSettingsFromEnv } from '../../../src/channels/email.js';
import type { NoticeState } from '../../../src/protocol/approvals.js';
import { finalTask, historyText, reply, startTask, waitForState } from '../../support/tasks.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';
import { eventually, MailServer, smtpEnv } from '../../support/mail-server.js';
import { readSettings } from '../../../src/config/settings.js';

const PUBLIC_URL = 'https://approvals.example.com';
const directory = {
  principals: {
    alice: { email: 'alice@example.com', name: 'Alice' },
    bob: { email: 'bob@example.com' },
    carol: { name: 'Carol, no address' },
  },
  groups: { finance: ['alice', 'bob', 'carol'] },
};

let mail: MailServer;
let worker: TestWorker;
let client: Client;

beforeAll(async () => {
  mail = new MailServer();
  const port = await mail.start();
  const settings = smtpSettingsFromEnv(
    readSettings({ ...smtpEnv(port), A2A_SMTP_FROM: 'Approvals <approvals@example.com>' }),
  )!;
  worker = await startTestWorker(undefined, {
    approvals: { directory, sendEmail: smtpSender(settings), publicUrl: PUBLIC_URL },
  });
  client = await testClient();
});

afterAll(async () => {
  await worker?.shutdown();
  await client?.connection.close();
  await mail?.close();
});

function notices(task: { metadata?: Record<string, unknown> }): NoticeState[] {
  return (task.metadata?.approverNotifications ?? []) as NoticeState[];
}

describe('the email channel', () => {
  it('mails each approver once, then tells the others who answered', async () => {
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'Buy 3 monitors for 450 EUR',
      data: { responders: ['alice', 'group:finance'], notify: ['email'], deadline: '1 hour' },
    });
    const waiting = await waitForState(handle, 'input-required');
    const deadline = (waiting.metadata?.pendingQuestion as { deadline: string }).deadline;
    const [toAlice] = await eventually(() => mail.to('alice@example.com').length === 1 && mail.to('alice@example.com'));
    await eventually(() => mail.to('bob@example.com').length === 1);

    const message = toAlice!.mail;
    const link = `${PUBLIC_URL}/inbox/task?agent=test-ask&id=${taskId}`;
    expect(message.subject).toBe('Approval needed: Your answer?');
    expect(message.from?.text).toContain('approvals@example.com');
    expect(message.text).toContain('Question: Your answer?');
    expect(message.text).toContain('Request: Buy 3 monitors for 450 EUR');
    expect(message.text).toContain(`Deadline: ${deadline.slice(0, 10)} ${deadline.slice(11, 16)} UTC`);
    expect(message.text).toContain(link);
    expect(message.html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
    expect(message.headers.get('x-a2a-notification-id')).toMatch(new RegExp(`^${taskId}:\\d+:alice:email:ask$`));
    expect(message.messageId).toMatch(/^<[0-9a-f]{40}@example\.com>$/);
    // The inbox link opens: the gateway serves the task page at that path (src/gateway/inbox/assets.ts).
    expect(new URL(link).pathname).toBe('/inbox/task');

    // Carol has no address: her notice failed for good, saying why, and the task still waits.
    const failing = await eventually(async () => {
      const task = await waitForState(handle, 'input-required');
      const carol = notices(task).find((notice) => notice.approver === 'carol');
      return carol?.state === 'failed' && carol;
    });
    expect(failing.reason).toBe('The approver directory has no email address for carol');

    await reply(handle, { text: 'approve', responder: 'alice' });
    const { task } = await finalTask(handle);
    // The workflow closed only after bob heard of the answer; alice, who answered, did not.
    const answered = mail.to('bob@example.com').map(({ mail }) => mail.subject);
    expect(answered).toEqual(['Approval needed: Your answer?', 'Answered by alice: Your answer?']);
    expect(mail.to('alice@example.com')).toHaveLength(1);

    const recorded = notices(task).map(({ approver, kind, state, to }) => ({ approver, kind, state, to }));
    expect(recorded).toEqual([
      { approver: 'alice', kind: 'ask', state: 'sent', to: 'a***@example.com' },
      { approver: 'bob', kind: 'ask', state: 'sent', to: 'b***@example.com' },
      { approver: 'carol', kind: 'ask', state: 'failed', to: undefined },
      { approver: 'bob', kind: 'answered', state: 'sent', to: 'b***@example.com' },
    ]);
    // Addresses never in clear: not in the task, not in its workflow history.
    const history = await historyText(handle);
    for (const text of [JSON.stringify(task), history]) {
      expect(text).not.toContain('alice@example.com');
      expect(text).not.toContain('bob@example.com');
    }
  });

  it('retries a mail server that refuses for a while, and sends each message once', async () => {
    mail.refusing = 2;
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'Renew the license',
      data: { responders: ['bob'], notify: ['email'] },
    });
    await waitForState(handle, 'input-required');
    // While it is being retried, the task says why.
    const retrying = await eventually(async () => {
      const task = await waitForState(handle, 'input-required');
      const notice = notices(task)[0];
      return notice?.state === 'pending' && notice.reason !== undefined && notice;
    });
    expect(retrying.reason).toContain('try again later');
    const received = await eventually(() => {
      const mine = mail.received.filter(({ mail }) =>
        String(mail.headers.get('x-a2a-notification-id')).startsWith(taskId),
      );
      return mine.length > 0 && mine;
    });
    expect(mail.refused).toBe(2);
    await reply(handle, { text: 'ok', responder: 'bob' });
    const { task } = await finalTask(handle);
    expect(received).toHaveLength(1);
    expect(notices(task)).toMatchObject([{ approver: 'bob', kind: 'ask', state: 'sent', to: 'b***@example.com' }]);
    expect(
      mail.received.filter(({ mail }) => String(mail.headers.get('x-a2a-notification-id')).startsWith(taskId)),
    ).toHaveLength(1);
  });
});
