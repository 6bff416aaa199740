/**
 * `a2a-temporal/testing` runs a project's agents as its worker does, the config's `approvals`
 * included: a question that names no channel reaches its approver by the config's default (email
 * here, to a real SMTP server, the channel set up from the A2A_SMTP_* environment as on a worker).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestEnvironment, type TestEnvironment } from '../../../src/testing/index.js';
import { eventually, MailServer, smtpEnv } from '../../support/mail-server.js';

const CONFIG = fileURLToPath(new URL('../../fixtures/configs/notify/a2a-temporal.config.ts', import.meta.url));

let mail: MailServer;
let env: TestEnvironment;

beforeAll(async () => {
  mail = new MailServer();
  const port = await mail.start();
  const dir = mkdtempSync(join(tmpdir(), 'a2a-testing-approvals-'));
  const directory = join(dir, 'directory.json');
  writeFileSync(directory, JSON.stringify({ principals: { alice: { email: 'alice@example.com' } } }));
  // This test process's own environment (each test file runs in a process of its own).
  Object.assign(process.env, {
    ...smtpEnv(port),
    A2A_APPROVER_DIRECTORY: directory,
  });
  env = await startTestEnvironment({ config: CONFIG, temporalAddress: inject('temporalAddress') });
});

afterAll(async () => {
  await env?.stop();
  await mail?.close();
});

describe('the testing package', () => {
  it("applies the config's approvals: the question is mailed by the default channel", async () => {
    const agent = env.agent('fault-approval');
    const task = await agent.send({ text: 'drill', metadata: { responder: 'alice' } });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const [received] = await eventually(() => mail.to('alice@example.com').length > 0 && mail.to('alice@example.com'));
    expect(received!.mail.subject).toBe('Approval needed: Approve the fault drill?');
    expect(String(received!.mail.headers.get('x-a2a-notification-id'))).toContain(`${task.id}:`);
    const done = await agent.reply(task.id, { text: 'approve', metadata: { responder: 'alice' } });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
