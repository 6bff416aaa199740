/**
 * The task page as a finance approver meets it, in Chromium, against a real gateway, worker, mail
 * server and Temporal dev server: the approval mail's inbox link opened signed out leads through
 * sign-in to that task; the page says what is asked, by whom, for whom and by when, with IDs and
 * JSON folded away; approve with a comment and deny with a reason reach the agent in the words of
 * an A2A reply; after an answer the page says what became of the task; a question carried up from
 * another agent says so; signing out from the task page.
 */
import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpSender, smtpSettingsFromEnv } from '../../../../src/channels/email.js';
import { startGateway, type RunningGateway } from '../../../../src/gateway/server.js';
import { chatAgent, delegatingAgent } from '../../../support/agents/test-agents.js';
import { eventually, MailServer, smtpEnv } from '../../../support/mail-server.js';
import { startTestWorker, testClient, type TestWorker } from '../../../support/worker.js';
import {
  apiKeyPeople,
  browserAvailable,
  INBOX_AGENTS,
  newContext,
  outcomeOf,
  row,
  rowShown,
  rpcWithKey,
  sendFirstMessage,
  signIn,
  useBrowser,
} from '../../../support/browser.js';
import { readSettings } from '../../../../src/config/settings.js';

const PEOPLE = { alice: ['finance'], carol: ['finance'] } as const;
type Person = keyof typeof PEOPLE;
const { keyOf, authenticator } = apiKeyPeople('task-page', PEOPLE);

const directory = { principals: { alice: { email: 'alice@example.com' } }, groups: { finance: ['alice'] } };
/** The worker's variable holding the key test-delegate calls this gateway with (only its name is in history). */
const DELEGATE_KEY_ENV = 'TASK_PAGE_TEST_DELEGATE_KEY';

const enabled = browserAvailable();
const stack = useBrowser(enabled);
let mail: MailServer;
let client: Client;
let gateway: RunningGateway;
let worker: TestWorker;

beforeAll(async () => {
  if (!enabled) return;
  mail = new MailServer();
  const smtpPort = await mail.start();
  client = await testClient();
  const taskQueue = `test-task-page-${randomUUID()}`;
  gateway = await startGateway({
    client,
    agents: [...INBOX_AGENTS, chatAgent, delegatingAgent],
    taskQueue,
    authenticator,
    host: '127.0.0.1',
    port: 0,
    grpcPort: false,
  });
  process.env[DELEGATE_KEY_ENV] = keyOf('alice');
  worker = await startTestWorker(taskQueue, {
    model: { baseURL: stack.model.url, model: 'fake-model' },
    approvals: {
      directory,
      sendEmail: smtpSender(smtpSettingsFromEnv(readSettings(smtpEnv(smtpPort)))!),
      publicUrl: gateway.url,
      answerLinks: false,
    },
  });
});

afterAll(async () => {
  await worker?.shutdown();
  await gateway?.close();
  await client?.connection.close();
  await mail?.close();
  delete process.env[DELEGATE_KEY_ENV];
});

function rpc(agent: string, method: string, params: unknown, person: Person): Promise<any> {
  return rpcWithKey(`${gateway.url}/agents/${agent}`, keyOf(person), method, params);
}

/** Starts a task as `person`; returns it once it waits for an answer. */
async function ask(agent: string, person: Person, text: string, data?: object): Promise<any> {
  const task = await sendFirstMessage(`${gateway.url}/agents/${agent}`, keyOf(person), text, data);
  await expect
    .poll(async () => (await rpc(agent, 'GetTask', { id: task.id }, person)).status.state, { timeout: 20_000 })
    .toBe('TASK_STATE_INPUT_REQUIRED');
  return task;
}

async function finished(agent: string, taskId: string, person: Person): Promise<any> {
  await expect
    .poll(async () => (await rpc(agent, 'GetTask', { id: taskId }, person)).status.state, { timeout: 20_000 })
    .toMatch(/COMPLETED|REJECTED|FAILED|CANCELED/);
  return rpc(agent, 'GetTask', { id: taskId }, person);
}

const taskPage = (agent: string, taskId: string) =>
  `${gateway.url}/inbox/task?${new URLSearchParams({ agent, id: taskId })}`;

async function openAs(person: Person, agent: string, taskId: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(stack.browser);
  const page = await context.newPage();
  await signIn(page, gateway.url, keyOf(person));
  await page.goto(taskPage(agent, taskId));
  await page.locator('#question-body .prompt').waitFor();
  return { context, page };
}

const TASK_READS = '**/inbox/api/tasks/**';

/** From now on every read of a task fails: what the page shows next comes from its answer's POST. */
async function withoutReads(page: Page): Promise<void> {
  await page.route(TASK_READS, (route) => (route.request().method() === 'GET' ? route.abort() : route.continue()));
}

/** What a reader sees: the rendered text, without what is folded away (closed <details>). */
const visibleText = (page: Page) => page.locator('main').innerText();

describe.runIf(enabled)('the task page, as a finance approver meets it', () => {
  it('the inbox link of the approval mail, opened signed out, leads through sign-in to that task', async () => {
    const run = randomUUID().slice(0, 8);
    const request = `Pay the Q3 cloud invoice (12,400 EUR) to Nimbus Hosting ${run}`;
    const task = await ask('test-ask', 'carol', request, {
      responders: ['group:finance'],
      notByRequester: true,
      notify: ['email'],
      deadline: '3 hours',
    });
    const received = await eventually(() =>
      mail.to('alice@example.com').find((item) => (item.mail.text ?? '').includes(run)),
    );
    const link = /^Answer it here: (\S+)$/m.exec(received.mail.text ?? '')?.[1];
    expect(link).toBe(taskPage('test-ask', task.id));

    const context = await newContext(stack.browser);
    const page = await context.newPage();
    await page.goto(link!);
    await page.locator('#signin').waitFor({ state: 'visible' });
    expect.soft(await page.locator('#signin-next').isVisible()).toBe(true);
    await page.locator('#signin-credential').fill(keyOf('alice'));
    await page.locator('#signin-form button[type=submit]').click();
    await page.waitForURL(link!, { timeout: 10_000 });
    await page.locator('#question-body .prompt').waitFor();
    expect(await page.locator('#task-title').textContent()).toBe(request);
    await context.close();
  });

  it('a plain question reads plainly; approve with a comment reaches the agent and the page says the task is done', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await ask('test-ask', 'carol', `Pay the invoice of Nimbus Hosting ${run}`, {
      responders: ['group:finance'],
      notByRequester: true,
      deadline: '3 hours',
    });
    const { context, page } = await openAs('alice', 'test-ask', task.id);
    // Soft: each of what a tester found is reported, not only the first.
    const shown = await visibleText(page);
    expect.soft(shown).not.toContain('undefined');
    expect.soft(shown).not.toContain(task.id);
    expect.soft(shown).toMatch(/Asked by\s+test-ask, [\w ]+ ago/);
    expect.soft(shown).toMatch(/On behalf of\s+carol/);
    expect.soft(shown).toMatch(/Answer by\s+\d+ h \d+ min left/);
    expect.soft(shown).toMatch(/Who may answer\s+group finance/);
    expect.soft(shown).toMatch(/Your answer\s+goes to test-ask, which goes on with the request/);
    // A reply other than approve or deny says what it is.
    expect.soft(shown).toContain('Reply with something else');
    expect.soft(shown).not.toContain('Another answer');
    // The IDs are there for whoever needs them, folded away.
    await page.locator('#technical summary').click();
    expect(await page.locator('#technical').innerText()).toContain(task.id);

    await page.locator('#approve-comment').fill('Checked against the contract');
    await page.locator('form.approve button').click();
    await outcomeOf(page, /^Answer sent\. The task is done: /);
    const done = await finished('test-ask', task.id, 'carol');
    expect(JSON.parse(done.status.message.parts[0].text)).toMatchObject({
      text: 'approve Checked against the contract',
      responder: 'alice',
    });
    await context.close();
  });

  it('deny with a reason reaches the agent; an answer followed by another question says so', async () => {
    const run = randomUUID().slice(0, 8);
    const denied = await ask('test-ask', 'carol', `Pay the invoice ${run}`, { responders: ['alice'] });
    const { context, page } = await openAs('alice', 'test-ask', denied.id);
    await page.locator('#deny-reason').fill('Not in this quarter’s budget');
    await page.locator('form.deny button').click();
    await outcomeOf(page, /^Answer sent\. The task is done: /);
    const done = await finished('test-ask', denied.id, 'carol');
    expect(JSON.parse(done.status.message.parts[0].text).text).toBe('deny Not in this quarter’s budget');

    const chat = await ask('test-chat', 'alice', `Two questions ${run}`, { turns: 2 });
    await page.goto(taskPage('test-chat', chat.id));
    await page.locator('#question-body .prompt').waitFor();
    expect(await visibleText(page)).toMatch(/Who may answer\s+alice \(the requester\)/);
    await page.locator('form.approve button').click();
    await outcomeOf(page, 'Answer sent. The agent has another question: see below.');
    expect(await page.locator('#question-body .prompt').textContent()).toBe('Question 2?');
    await context.close();
  });

  it('an answer’s outcome comes in its POST’s answer: the page reads the task no more to show it', async () => {
    const run = randomUUID().slice(0, 8);
    const approved = await ask('test-ask', 'carol', `Pay the invoice ${run}`, { responders: ['alice'] });
    const { context, page } = await openAs('alice', 'test-ask', approved.id);
    await withoutReads(page);
    await page.locator('form.approve button').click();
    await outcomeOf(page, 'Answer sent. The task is done: ');
    expect(await page.locator('#task-meta .state').textContent()).toBe('Done');

    const chat = await ask('test-chat', 'alice', `Two questions ${run}`, { turns: 2 });
    await page.unroute(TASK_READS);
    await page.goto(taskPage('test-chat', chat.id));
    await page.locator('#question-body .prompt').waitFor();
    await withoutReads(page);
    await page.locator('form.approve button').click();
    await outcomeOf(page, 'Answer sent. The agent has another question: see below.');
    expect(await page.locator('#question-body .prompt').textContent()).toBe('Question 2?');
    await context.close();
  });

  it('an agent that works on after the answer: the page says so meanwhile, then shows the outcome', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await ask('test-ask', 'carol', `Pay the invoice ${run}`, {
      responders: ['alice'],
      workAfter: '6 seconds',
    });
    const { context, page } = await openAs('alice', 'test-ask', task.id);
    await page.locator('form.approve button').click();
    // The POST waits for the task to settle; the page's own reads meanwhile show the agent at work.
    await outcomeOf(page, 'Answer sent. The agent is working on it; its outcome will show here.');
    await outcomeOf(page, /^Answer sent\. The task is done: /);
    await context.close();
  });

  it('a tool approval reads plainly and is approved with a comment; the expected JSON is folded away', async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    stack.model.script(
      {
        match: token,
        toolCalls: [{ name: 'place_order', arguments: { item: 'standing desk', quantity: 4, total: 1960 } }],
      },
      { match: token, text: `Ordered the desks ${token}.` },
    );
    const task = await ask('test-llm', 'alice', `Order four standing desks ${token}`);
    const { context, page } = await openAs('alice', 'test-llm', task.id);
    const shown = await visibleText(page);
    expect.soft(shown).toContain('The agent wants to use the tool “place_order”.');
    expect.soft(shown).toContain('Why it needs your approval: the total 1960 is over 100');
    expect.soft(shown).toMatch(/quantity\s+4/);
    expect.soft(shown).not.toContain('Reply "approve"');
    expect.soft(shown).not.toContain('Expects');
    expect.soft(shown).not.toContain('{');

    await page.locator('#approve-comment').fill('Budgeted in March');
    await page.locator('form.approve button').click();
    await outcomeOf(page, `Answer sent. The task is done: Ordered the desks ${token}.`);
    const answers = (await finished('test-llm', task.id, 'alice')).history.filter((m: any) => m.role === 'ROLE_USER');
    expect(answers.at(-1).parts[0].data).toEqual({ decision: 'approve', reason: 'Budgeted in March' });
    await context.close();
  });

  it('a question carried up from another agent says where it came from', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await ask('test-delegate', 'alice', `Buy a monitor ${run}`, {
      url: `${gateway.url}/agents/test-ask`,
      apiKeyEnv: DELEGATE_KEY_ENV,
    });
    const { context, page } = await openAs('alice', 'test-delegate', task.id);
    const list = await context.newPage();
    await list.goto(`${gateway.url}/inbox/`);
    await rowShown(list, task.id);
    expect
      .soft(await row(list, task.id).locator('.meta').textContent())
      .toMatch(/^asked by test-ask\s*requested by alice/);
    await list.close();
    const shown = await visibleText(page);
    expect.soft(shown).toContain('Asked by test-ask, on behalf of test-delegate’s task');
    expect.soft(shown).toMatch(/Asked by\s+test-ask, [\w ]+ ago/);
    expect.soft(shown).toMatch(/Your answer\s+goes back to test-ask, which asked; test-delegate’s task goes on/);
    await page.locator('form.approve button').click();
    await outcomeOf(page, /^Answer sent\. The task is done: The remote agent says: /);
    await context.close();
  });

  it('a question carried up a chain of agents names the one that asked, and those it came through', async () => {
    const run = randomUUID().slice(0, 8);
    const askAgent = { url: `${gateway.url}/agents/test-ask`, apiKeyEnv: DELEGATE_KEY_ENV };
    const task = await ask('test-delegate', 'alice', `Buy a desk ${run}`, {
      url: `${gateway.url}/agents/test-delegate`,
      apiKeyEnv: DELEGATE_KEY_ENV,
      next: askAgent,
    });
    const { context, page } = await openAs('alice', 'test-delegate', task.id);
    const list = await context.newPage();
    await list.goto(`${gateway.url}/inbox/`);
    await rowShown(list, task.id);
    expect(await row(list, task.id).locator('.from-agent').textContent()).toBe(
      'asked by test-ask, through test-delegate',
    );
    await list.close();
    expect(await visibleText(page)).toContain(
      'Asked by test-ask, through test-delegate, on behalf of test-delegate’s task',
    );
    await context.close();
  });

  it('signing out from the task page; its link then asks to sign in again', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await ask('test-ask', 'carol', `Still waiting ${run}`, { responders: ['alice'] });
    const { context, page } = await openAs('alice', 'test-ask', task.id);
    await page.locator('#who button').click();
    await page.locator('#signin').waitFor({ state: 'visible' });
    expect(await page.locator('#signin-next').isVisible()).toBe(false);
    await page.goto(taskPage('test-ask', task.id));
    await page.locator('#signin-next').waitFor({ state: 'visible' });
    // Only a task page of this inbox is returned to after sign-in, never another address.
    const elsewhere = `${gateway.url}/inbox/?${new URLSearchParams({ next: '//evil.example/inbox/task?id=1' })}`;
    await page.goto(elsewhere);
    await page.locator('#signin-credential').fill(keyOf('alice'));
    await page.locator('#signin-form button[type=submit]').click();
    await page.locator('#inbox').waitFor({ state: 'visible' });
    expect(page.url()).toBe(elsewhere);
    await context.close();
  });
});
