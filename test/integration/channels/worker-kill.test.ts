/**
 * A worker killed mid-send (SIGKILL, the product's `worker` command as a child process): the mail
 * server has the approval email, the worker never learned it was sent. Temporal retries the notice
 * on the next worker once the attempt times out: the approver gets the email again under the same
 * Message-ID (what mail stores dedupe on) and the same X-A2A-Notification-Id, never a second,
 * different message; the task records it sent once, and nothing is lost.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoticeState } from '../../../src/protocol/approvals.js';
import { faultSuite, startWorker, uniqueQueue, type ServeProcess } from '../../support/product-processes.js';
import { finalTask, reply, startTask, waitForState } from '../../support/tasks.js';
import { eventually, MailServer, smtpEnv } from '../../support/mail-server.js';

const CONFIG = fileURLToPath(new URL('../../fixtures/configs/notify/a2a-temporal.config.ts', import.meta.url));

const suite = faultSuite();
let mail: MailServer;
let env: Record<string, string>;

beforeAll(async () => {
  mail = new MailServer();
  const port = await mail.start();
  const dir = mkdtempSync(join(tmpdir(), 'a2a-kill-mail-'));
  const directory = join(dir, 'directory.json');
  writeFileSync(directory, JSON.stringify({ principals: { alice: { email: 'alice@example.com' } } }));
  env = {
    ...smtpEnv(port),
    A2A_APPROVER_DIRECTORY: directory,
    A2A_PUBLIC_URL: 'https://approvals.example.com',
  };
});

afterAll(() => mail?.close());

describe('a worker killed mid-send', () => {
  it('sends the approval email again under the same Message-ID, records it once, and loses nothing', async () => {
    const taskQueue = uniqueQueue('mail-kill');
    let worker: ServeProcess = await startWorker({ taskQueue, config: CONFIG, env });
    let killed = false;
    // The first message is kept by the server, and its sender killed before the server says 250.
    mail.beforeAck = async () => {
      if (killed) return;
      killed = true;
      await worker.stop('SIGKILL');
    };
    const { taskId, handle } = await startTask(suite.temporal, taskQueue, 'fault-approval', {
      text: 'drill',
      responder: 'alice',
    });
    const mine = () =>
      mail.received.filter(({ mail }) => String(mail.headers.get('x-a2a-notification-id')).startsWith(taskId));
    await eventually(() => killed && mine().length === 1);

    const killedAt = Date.now();
    worker = await startWorker({ taskQueue, config: CONFIG, env });
    // The lost attempt times out (45 s, the notice's start-to-close timeout), then the next worker sends again.
    await eventually(() => mine().length === 2, 120_000);
    const resentAfterMs = Date.now() - killedAt;

    const copies = mine().map(({ mail, to }) => ({
      to,
      messageId: mail.messageId,
      notificationId: mail.headers.get('x-a2a-notification-id'),
      subject: mail.subject,
      text: mail.text,
    }));
    expect(copies[0]!.to).toEqual(['alice@example.com']);
    expect(copies[0]!.notificationId).toMatch(new RegExp(`^${taskId}:\\d+:alice:email:ask$`));
    expect(copies[0]!.messageId).toMatch(/^<[0-9a-f]{40}@example\.com>$/);
    // The same message twice: one Message-ID, one notification ID, the same content.
    expect(copies[1]).toEqual(copies[0]);

    const waiting = await eventually(async () => {
      const task = await waitForState(handle, 'input-required');
      const notices = (task.metadata?.approverNotifications ?? []) as NoticeState[];
      return notices[0]?.state === 'sent' && notices;
    });
    expect(waiting).toMatchObject([{ approver: 'alice', kind: 'ask', state: 'sent', to: 'a***@example.com' }]);
    expect(waiting).toHaveLength(1);

    await reply(handle, { text: 'approve', responder: 'alice' });
    const { task } = await finalTask(handle);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(mine()).toHaveLength(2);
    console.log(`[mail-kill] resent ${resentAfterMs} ms after the kill; ${mine().length} copies, 1 Message-ID`);
    await worker.stop();
  }, 240_000);
});
