/**
 * One-click answers from an approval email, end to end: the mail arrives on a real SMTP server with
 * Approve / Deny links; following one (GET) only shows a confirmation page; its form's POST answers
 * the task as the link's principal (its group from the directory the project config names, read by
 * the gateway as by the worker), through the same checks as an A2A reply. A link replayed after the
 * answer, used against the task's next question, expired, tampered with, or posted from another site
 * is refused. In Chromium: the mailed link opened, its button clicked, the task done; and the same
 * form auto-submitted by a page of another site refused.
 */
import type { Client } from '@temporalio/client';
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpSender, smtpSettingsFromEnv } from '../../../src/channels/email.js';
import { mintAnswerToken, readAnswerToken } from '../../../src/channels/answer-links.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { createTemporalClient } from '../../../src/tasks/temporal-client.js';
import { gatewaySettings } from '../../../src/gateway/config.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/server.js';
import { askingAgent, chatAgent } from '../../support/agents/test-agents.js';
import { browserAvailable, launchBrowser } from '../../support/browser.js';
import { finalTask, startTask, waitForState } from '../../support/tasks.js';
import { useTempDirs } from '../../support/temp-dirs.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';
import { eventually, MailServer, smtpEnv, type ReceivedMail } from '../../support/mail-server.js';
import { readSettings } from '../../../src/config/settings.js';

const SECRET = randomBytes(32).toString('base64url');
const directory = {
  principals: {
    alice: { email: 'alice@example.com' },
    bob: { email: 'bob@example.com' },
    erin: { email: 'erin@example.com' },
  },
  groups: { finance: ['alice', 'bob'] },
};

const temp = useTempDirs();
let mail: MailServer;
let gateway: RunningGateway;
let worker: TestWorker;
let client: Client;

/** A project whose config names the directory file (`approvals.directory`), and no A2A_APPROVER_DIRECTORY. */
async function projectConfig() {
  const dir = temp.make('a2a-links-project-');
  writeFileSync(
    join(dir, 'agents.ts'),
    "export default [{ name: 'x', description: 'x', skills: [], run: async () => 'ok' }];\n",
  );
  writeFileSync(join(dir, 'people.json'), JSON.stringify(directory));
  writeFileSync(
    join(dir, 'a2a-temporal.config.ts'),
    "export default { agents: './agents.ts', approvals: { directory: './people.json' } };\n",
  );
  return loadConfig(undefined, dir);
}

beforeAll(async () => {
  mail = new MailServer();
  const port = await mail.start();
  client = await testClient();
  const taskQueue = `test-links-${randomUUID()}`;
  const config = await projectConfig();
  // The link settings as the `gateway` command makes them: the secret from the environment, the directory from the config.
  const { answerLinks } = gatewaySettings(readSettings({ A2A_APPROVAL_LINK_SECRET: SECRET }), 'development', config);
  gateway = await startGateway({
    client,
    agents: [askingAgent, chatAgent],
    taskQueue,
    host: '127.0.0.1',
    port: 0,
    grpcPort: false,
    ...(answerLinks && { answerLinks }),
  });
  const settings = smtpSettingsFromEnv(readSettings(smtpEnv(port)))!;
  worker = await startTestWorker(taskQueue, {
    approvals: {
      ...config.approvals,
      sendEmail: smtpSender(settings),
      publicUrl: gateway.url,
      answerLinks: { secret: Buffer.from(SECRET), ttlMs: 60 * 60 * 1000 },
    },
  });
});

afterAll(async () => {
  await worker?.shutdown();
  await gateway?.close();
  await client?.connection.close();
  await mail?.close();
});

/** The one-click links of a mail, from its plain text; the HTML carries the same ones. */
function linksOf(received: ReceivedMail): { approve: string; deny: string } {
  const text = received.mail.text ?? '';
  const approve = /^Approve: (\S+)$/m.exec(text)?.[1];
  const deny = /^Deny: (\S+)$/m.exec(text)?.[1];
  expect(approve && deny).toBeTruthy();
  const html = String(received.mail.html);
  for (const link of [approve!, deny!]) expect(html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
  return { approve: approve!, deny: deny! };
}

function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token')!;
}

/** The form's POST, as the browser sends it from the confirmation page. */
async function confirm(link: string, headers: Record<string, string | undefined> = {}) {
  const url = new URL(link);
  const sent = { origin: url.origin, 'sec-fetch-site': 'same-origin', ...headers };
  const response = await fetch(`${url.origin}${url.pathname}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...Object.fromEntries(Object.entries(sent).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    },
    body: new URLSearchParams({ token: tokenOf(link) }).toString(),
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text() };
}

async function open(link: string) {
  const response = await fetch(link, { redirect: 'manual' });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

describe('one-click answer links in approval emails', () => {
  it('shows a confirmation page on GET, answers on its POST, and refuses the link replayed', async () => {
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-ask', {
      text: 'Buy 3 monitors for 450 EUR',
      data: { responders: ['group:finance'], notify: ['email'], deadline: '1 hour' },
    });
    await waitForState(handle, 'input-required');
    const [toAlice] = await eventually(() => mail.to('alice@example.com').length === 1 && mail.to('alice@example.com'));
    await eventually(() => mail.to('bob@example.com').length === 1);
    const links = linksOf(toAlice!);
    expect(links.approve.startsWith(`${gateway.url}/inbox/answer?token=`)).toBe(true);
    expect(readAnswerToken(Buffer.from(SECRET), tokenOf(links.approve))).toMatchObject({
      claims: { agent: 'test-ask', taskId, approver: 'alice', decision: 'approve' },
    });

    // Following the link (a person, or a mail scanner) only shows the page.
    const page = await open(links.approve);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('Your answer?');
    expect(page.text).toContain('You answer <strong>approve</strong>, as alice.');
    expect(page.text).toContain(`<form method="post" action="answer">`);
    expect(page.text).toContain(`name="token" value="${tokenOf(links.approve)}"`);
    await open(links.approve);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await waitForState(handle, 'input-required')).metadata?.pendingQuestion).toBeDefined();

    // Posted from another site: refused, the task still waits. A null Origin (a page whose policy is
    // no-referrer) counts only when Fetch Metadata says same-origin; without it, refused.
    expect(
      (await confirm(links.approve, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status,
    ).toBe(403);
    expect((await confirm(links.approve, { origin: 'null', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await confirm(links.approve, { origin: 'null', 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await confirm(links.approve, { origin: 'null', 'sec-fetch-site': undefined })).status).toBe(403);
    await waitForState(handle, 'input-required');

    const answered = await confirm(links.approve);
    expect(answered).toMatchObject({ status: 200, text: expect.stringContaining('Recorded: approve, as alice.') });
    const { task } = await finalTask(handle);
    // Alice answered as herself, a member of group:finance (the gateway's directory says so).
    expect(JSON.parse(task.status.message!.parts[0]!.text!)).toMatchObject({ text: 'approve', responder: 'alice' });
    expect(task.metadata?.timeline).toEqual(
      expect.arrayContaining([expect.objectContaining({ state: 'working', by: 'alice' })]),
    );

    // Replayed (the same link, or the other one): the question no longer waits.
    const replayed = await confirm(links.approve);
    expect(replayed.status).toBe(409);
    expect(replayed.text).toContain('no longer waits');
    expect((await open(links.deny)).status).toBe(409);
    expect((await confirm(linksOf(mail.to('bob@example.com')[0]!).deny)).status).toBe(409);
    // Bob heard who answered, with no links in that note.
    const note = await eventually(() => mail.to('bob@example.com')[1]);
    expect(note.mail.subject).toBe('Answered by alice: Your answer?');
    expect(note.mail.text).not.toContain('/inbox/answer');
  });

  it("refuses a link against the task's next question, an expired link and a tampered one", async () => {
    const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-chat', {
      text: 'chat',
      responder: 'erin',
      data: { turns: 2, notify: ['email'], deadline: '1 hour' },
    });
    const first = await eventually(() => mail.to('erin@example.com')[0]);
    const q1 = linksOf(first);
    expect((await confirm(q1.approve)).status).toBe(200);
    const second = await eventually(() => mail.to('erin@example.com')[1]);
    expect(second.mail.text).toContain('Question: Question 2?');
    await waitForState(handle, 'input-required');

    // The first question's other link does not answer the second question.
    const stale = await confirm(q1.deny);
    expect(stale.status).toBe(409);
    await waitForState(handle, 'input-required');

    const q2 = linksOf(second);
    const secret = Buffer.from(SECRET);
    const claims = readAnswerToken(secret, tokenOf(q2.deny));
    if (!('claims' in claims)) throw new Error('the mailed token does not verify');
    // Expired: signed with the right key, past its time.
    const expired = mintAnswerToken(secret, { ...claims.claims, expiresAt: Date.now() - 1000 });
    const expiredLink = `${gateway.url}/inbox/answer?token=${expired}`;
    expect((await open(expiredLink)).status).toBe(410);
    expect((await confirm(expiredLink)).status).toBe(410);
    // Tampered: the deny link's payload turned into an approval by someone else, under its old signature.
    const [payload, signature] = tokenOf(q2.deny).split('.');
    const changed = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), d: 'approve', p: 'bob' };
    const forged = `${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
    const forgedLink = `${gateway.url}/inbox/answer?token=${forged}`;
    expect((await open(forgedLink)).status).toBe(403);
    expect((await confirm(forgedLink)).status).toBe(403);
    // Signed with another key.
    const otherKey = mintAnswerToken(randomBytes(32), claims.claims);
    expect((await confirm(`${gateway.url}/inbox/answer?token=${otherKey}`)).status).toBe(403);
    await waitForState(handle, 'input-required');

    expect((await confirm(q2.deny)).status).toBe(200);
    const { task } = await finalTask(handle);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message?.parts[0]?.text).toBe('approve,deny');
    expect(taskId).toBeTruthy();
  });
});

describe('one-click answer links without Temporal', () => {
  it('asks to open the link again later, not an error page', async () => {
    const { client: unreachable } = createTemporalClient({ address: '127.0.0.1:1', connectTimeout: '1s' }, 'default');
    const config = await projectConfig();
    const { answerLinks } = gatewaySettings(readSettings({ A2A_APPROVAL_LINK_SECRET: SECRET }), 'development', config);
    const down = await startGateway({
      client: unreachable,
      agents: [askingAgent],
      taskQueue: 'unused',
      host: '127.0.0.1',
      port: 0,
      grpcPort: false,
      ...(answerLinks && { answerLinks }),
    });
    try {
      const claims = { agent: 'test-ask', taskId: randomUUID(), askedAt: new Date().toISOString() };
      const token = mintAnswerToken(Buffer.from(SECRET), {
        ...claims,
        approver: 'alice',
        decision: 'approve',
        expiresAt: Date.now() + 60_000,
      });
      const opened = await open(`${down.url}/inbox/answer?token=${token}`);
      expect(opened.status).toBe(503);
      expect(opened.text).toContain('Temporal is unreachable: open this link again in a moment.');
    } finally {
      await down.close();
      await unreachable.connection.close();
    }
  });
});

/** A JSON-RPC call to the gateway (it runs without authentication here). */
async function rpc(agent: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(`${gateway.url}/agents/${agent}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as any;
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

/** The mail to `address` about task `taskId`, once it arrived (its links name the task). */
function mailAbout(address: string, taskId: string): Promise<ReceivedMail> {
  return eventually(() =>
    mail.to(address).find((received) => {
      const approve = /^Approve: (\S+)$/m.exec(received.mail.text ?? '')?.[1];
      const reading = approve && readAnswerToken(Buffer.from(SECRET), tokenOf(approve));
      return reading && 'claims' in reading && reading.claims.taskId === taskId;
    }),
  );
}

describe.runIf(browserAvailable())('one-click answers in Chromium', () => {
  let browser: Browser;
  /** Another site, serving `foreignPage`: localhost and 127.0.0.1 are different sites to the browser. */
  let elsewhere: Server;
  let foreignPage = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    elsewhere = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(foreignPage));
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
  });

  /** A question for group:finance, mailed, through the A2A API. */
  async function ask(text: string): Promise<string> {
    const data = { responders: ['group:finance'], notify: ['email'], deadline: '1 hour' };
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }, { data }] };
    const { task } = await rpc('test-ask', 'SendMessage', { message });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    return task.id as string;
  }

  async function stateOf(taskId: string): Promise<string> {
    return (await rpc('test-ask', 'GetTask', { id: taskId })).status.state;
  }

  /** Opens the mailed link, clicks its button; the headers Chromium sent with the POST. */
  async function approveFromPage(page: Page, link: string): Promise<Record<string, string>> {
    await page.goto(link);
    expect(await page.locator('h1').textContent()).toBe('Approve?');
    const [posted] = await Promise.all([
      page.waitForRequest((request) => request.method() === 'POST'),
      page.getByRole('button', { name: 'Approve' }).click(),
    ]);
    await page.waitForURL(`${gateway.url}/inbox/answer`);
    expect(await page.locator('main').textContent()).toContain('Recorded: approve');
    return posted.allHeaders();
  }

  it('approves from the mailed link: the confirmation page, its button, the task completed', async () => {
    const taskId = await ask('Buy 3 monitors for 450 EUR');
    const { approve } = linksOf(await mailAbout('alice@example.com', taskId));
    const page = await browser.newPage();
    const posted = await approveFromPage(page, approve);
    expect(await page.locator('main').textContent()).toContain('Recorded: approve, as alice.');
    // What Chromium sends from a page whose policy is no-referrer: Origin null, Fetch Metadata same-origin.
    expect(posted).toMatchObject({ origin: 'null', 'sec-fetch-site': 'same-origin' });
    await expect.poll(() => stateOf(taskId), { timeout: 15_000 }).toBe('TASK_STATE_COMPLETED');
    const task = await rpc('test-ask', 'GetTask', { id: taskId });
    // Alice answered as a member of group:finance: the directory the project config names says so.
    expect(JSON.parse(task.status.message.parts[0].text)).toMatchObject({ text: 'approve', responder: 'alice' });
    await page.close();
  });

  it('shows a mailed link opened after its question was answered as used up, with no button', async () => {
    const taskId = await ask('Renew the support contract for 2,100 EUR');
    const alices = linksOf(await mailAbout('alice@example.com', taskId));
    const bobs = linksOf(await mailAbout('bob@example.com', taskId));
    expect((await confirm(alices.approve)).status).toBe(200);
    await expect.poll(() => stateOf(taskId), { timeout: 15_000 }).toBe('TASK_STATE_COMPLETED');

    const page = await browser.newPage();
    const opened = await page.goto(bobs.deny);
    expect(opened?.status()).toBe(409);
    expect(await page.locator('h1').textContent()).toBe('Nothing to answer');
    expect(await page.locator('main').textContent()).toContain('no longer waits for an answer: this link is used up.');
    expect(await page.getByRole('button').count()).toBe(0);
    await page.close();
  });

  it('refuses the same form submitted by a page of another site', async () => {
    const taskId = await ask('Pay invoice 17 for 9,800 EUR');
    const { approve } = linksOf(await mailAbout('bob@example.com', taskId));
    // The other site's page posts the link's token at once, with no-referrer: Origin null, as from the real page.
    foreignPage =
      `<!doctype html><meta name="referrer" content="no-referrer">` +
      `<form method="post" action="${gateway.url}/inbox/answer"><input type="hidden" name="token" value="${tokenOf(approve)}"></form>` +
      `<script>document.forms[0].submit()</script>`;
    const page = await browser.newPage();
    const [posted] = await Promise.all([
      page.waitForRequest((request) => request.method() === 'POST'),
      page.goto(`http://localhost:${(elsewhere.address() as AddressInfo).port}/`),
    ]);
    await page.waitForURL(`${gateway.url}/inbox/answer`);
    expect(await page.locator('h1').textContent()).toBe('Refused');
    expect(await posted.allHeaders()).toMatchObject({ origin: 'null', 'sec-fetch-site': 'cross-site' });
    expect(await stateOf(taskId)).toBe('TASK_STATE_INPUT_REQUIRED');

    // The link itself still answers, from its own page.
    await approveFromPage(page, approve);
    await expect.poll(() => stateOf(taskId), { timeout: 15_000 }).toBe('TASK_STATE_COMPLETED');
    await page.close();
  });
});
