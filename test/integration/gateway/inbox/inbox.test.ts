/**
 * The approvals inbox in a real browser (Debian's Chromium), against a real gateway, worker and
 * Temporal dev server: signing in with an API key, the live list across agents, answering (approve,
 * deny, a generated form, edited tool arguments), refusals inline, hostile strings shown as text,
 * CSRF, the session cookie and sign-out; and development mode without authentication.
 */
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../../src/gateway/server.js';
import { placedOrders } from '../../../support/test-activities.js';
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
  useInboxStack,
} from '../../../support/browser.js';

const PEOPLE = { alice: ['finance'], bob: ['staff'], carol: ['finance'] } as const;
type Person = keyof typeof PEOPLE;
const { keyOf, authenticator } = apiKeyPeople('inbox', PEOPLE);

const enabled = browserAvailable();
const { stack, harness } = useInboxStack(authenticator, enabled);
const base = () => harness.gateway.url;

/** A JSON-RPC call as `person`. */
function rpc(agent: string, method: string, params: unknown, person: Person): Promise<any> {
  return rpcWithKey(`${base()}/agents/${agent}`, keyOf(person), method, params);
}

/** Starts a task as `person` and returns it once it waits (or settles otherwise). */
async function ask(agent: string, person: Person, text: string, data?: object): Promise<any> {
  const task = await sendFirstMessage(`${base()}/agents/${agent}`, keyOf(person), text, data);
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return task;
}

async function stateOf(agent: string, taskId: string, person: Person): Promise<string> {
  return (await rpc(agent, 'GetTask', { id: taskId }, person)).status.state;
}

async function settled(agent: string, taskId: string, person: Person): Promise<any> {
  await expect
    .poll(() => stateOf(agent, taskId, person), { timeout: 15_000 })
    .not.toMatch(/SUBMITTED|WORKING|INPUT_REQUIRED/);
  return rpc(agent, 'GetTask', { id: taskId }, person);
}

const taskPage = (agent: string, taskId: string) =>
  `${base()}/inbox/task?${new URLSearchParams({ agent, id: taskId })}`;

async function signedIn(person: Person, phone = false): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(stack.browser, phone);
  const page = await context.newPage();
  await signIn(page, base(), keyOf(person));
  return { context, page };
}

describe.runIf(enabled)('the approvals inbox in a browser', () => {
  it('alice sees the finance question and not bob’s own; her approval removes it live from her other page', async () => {
    const run = randomUUID().slice(0, 8);
    const bobs = await ask('expense-approval', 'bob', `Please approve an expense of 40 USD for a taxi ${run}`);
    const finance = await ask('test-ask', 'carol', `Pay the invoice ${run}`, {
      responders: ['group:finance'],
      notByRequester: true,
    });
    const { context, page } = await signedIn('alice');
    await rowShown(page, finance.id);
    await expect(row(page, finance.id)).toBeTruthy();
    expect(await row(page, finance.id).textContent()).toContain(`Pay the invoice ${run}`);
    expect(await row(page, finance.id).textContent()).toContain('requested by carol');
    // Bob's own question names nobody: his alone (and listed for him by then).
    const bobsPage = (await signedIn('bob')).page;
    await rowShown(bobsPage, bobs.id);
    expect(await row(page, bobs.id).count()).toBe(0);
    await bobsPage.context().close();

    const other = await context.newPage();
    await other.goto(`${base()}/inbox/`);
    await rowShown(other, finance.id);
    await other.evaluate(() => ((globalThis as any).notReloaded = true));

    await row(page, finance.id).locator('a').click();
    await page.locator('form.approve button').click();
    await outcomeOf(page, 'Answer sent');
    const answeredAt = Date.now();
    await row(other, finance.id).waitFor({ state: 'detached', timeout: 5_000 });
    const gone = Date.now() - answeredAt;
    console.log(`inbox: the answered row left the other page ${gone} ms after the answer`);
    expect(gone).toBeLessThan(2_000);
    expect(await other.evaluate(() => (globalThis as any).notReloaded)).toBe(true);
    const done = await settled('test-ask', finance.id, 'carol');
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.parse(done.status.message.parts[0].text)).toMatchObject({ text: 'approve', responder: 'alice' });
    await context.close();
  });

  it('a task waiting on two questions has a row for each; answering one from its page leaves the other', async () => {
    const run = randomUUID().slice(0, 8);
    const questions = [
      { question: `Desks ${run}?`, responders: ['group:finance'] },
      { question: `Chairs ${run}?`, responders: ['group:finance'] },
    ];
    const task = await ask('test-ask-several', 'bob', `Furnish ${run}`, { questions });
    const { context, page } = await signedIn('alice');
    await expect.poll(() => row(page, task.id).count(), { timeout: 10_000 }).toBe(2);
    const chairs = row(page, task.id).filter({ hasText: `Chairs ${run}?` });
    await chairs.locator('a').click();
    // The page shows the row's question, not the task's earliest.
    await page
      .locator('#question-body')
      .filter({ hasText: `Chairs ${run}?` })
      .waitFor({ timeout: 10_000 });
    await page.locator('form.approve button').click();
    await outcomeOf(page, /Answer sent/);
    const open = await rpc('test-ask-several', 'GetTask', { id: task.id }, 'bob');
    expect(open.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(open.metadata.pendingQuestion.prompt).toBe(`Desks ${run}?`);
    await context.close();
  });

  it('a tool approval: an invalid edit is refused inline and the task still waits; an edited call is approved', async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    stack.model.script(
      {
        match: token,
        toolCalls: [{ name: 'place_order', arguments: { item: `desk ${token}`, quantity: 3, total: 450 } }],
      },
      { match: token, text: 'Ordered the desks.' },
    );
    const task = await ask('test-llm', 'alice', `Buy desks ${token}`);
    const { context, page } = await signedIn('alice');
    await rowShown(page, task.id);
    expect(await row(page, task.id).locator('.tool-name').textContent()).toBe('Tool: place_order');
    expect(await row(page, task.id).locator('.tool-reason').textContent()).toContain('the total 450 is over 100');

    await page.goto(taskPage('test-llm', task.id));
    await page.locator('details.edit summary').click();
    const editor = page.locator('#tool-arguments');
    expect(JSON.parse(await editor.inputValue())).toEqual({ item: `desk ${token}`, quantity: 3, total: 450 });
    const approveEdited = page.locator('form.edit button');
    // Checked in the page: not JSON, then a wrong type.
    await editor.fill('{ "item": ');
    await approveEdited.click();
    await outcomeOf(page, /Not valid JSON/);
    await editor.fill(JSON.stringify({ item: 'desk', quantity: 'three', total: 450 }));
    await approveEdited.click();
    await outcomeOf(page, /arguments\.quantity must be integer/);
    // Checked by the task, as any A2A reply is: a quantity that is not positive.
    await editor.fill(JSON.stringify({ item: 'desk', quantity: -3, total: 450 }));
    await approveEdited.click();
    await outcomeOf(page, /^Refused: .*quantity/);
    expect(await stateOf('test-llm', task.id, 'alice')).toBe('TASK_STATE_INPUT_REQUIRED');

    await editor.fill(JSON.stringify({ item: `desk ${token}`, quantity: 2, total: 300 }));
    await approveEdited.click();
    await outcomeOf(page, 'Answer sent');
    expect((await settled('test-llm', task.id, 'alice')).status.state).toBe('TASK_STATE_COMPLETED');
    expect(placedOrders).toContainEqual({ item: `desk ${token}`, quantity: 2, total: 300 });
    await context.close();
  });

  it('a typed question is answered through the form generated from its schema', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await ask('test-ask', 'carol', `Sign off the budget ${run}`, {
      responders: ['group:finance'],
      structured: true,
    });
    const { context, page } = await signedIn('alice', true);
    await page.goto(taskPage('test-ask', task.id));
    await page.locator('label[for="field-approved"]').waitFor();
    // The schema's own description, not "Expects: …" in the runtime's words.
    expect(await page.locator('main').innerText()).not.toContain('Expects');
    await page.locator('#field-approved').check();
    await page.locator('#field-comment').fill('within budget');
    await page.locator('form.typed button').click();
    await outcomeOf(page, 'Answer sent');
    const done = await settled('test-ask', task.id, 'carol');
    expect(JSON.parse(done.status.message.parts[0].text)).toMatchObject({
      value: { approved: true, comment: 'within budget' },
      responder: 'alice',
    });
    await context.close();
  });

  it('a question answered over A2A, and one whose deadline passes, leave the open page live', async () => {
    const run = randomUUID().slice(0, 8);
    const overA2A = await ask('test-ask', 'carol', `Answered elsewhere ${run}`, { responders: ['alice'] });
    const expiring = await ask('test-ask', 'carol', `Expires soon ${run}`, {
      responders: ['alice'],
      // Long enough for a browser on a loaded machine to sign in and show it before it passes.
      deadline: '15 seconds',
    });
    const { context, page } = await signedIn('alice', true);
    await rowShown(page, overA2A.id);
    await rowShown(page, expiring.id);
    await page.evaluate(() => ((globalThis as any).notReloaded = true));
    expect(await row(page, expiring.id).locator('.deadline').textContent()).toMatch(/ s left/);

    const message = { messageId: randomUUID(), role: 'ROLE_USER', taskId: overA2A.id, parts: [{ text: 'yes' }] };
    await rpc('test-ask', 'SendMessage', { message }, 'alice');
    await row(page, overA2A.id).waitFor({ state: 'detached', timeout: 5_000 });
    await row(page, expiring.id).waitFor({ state: 'detached', timeout: 25_000 });
    expect(await page.evaluate(() => (globalThis as any).notReloaded)).toBe(true);
    await context.close();
  });

  it('renders hostile strings in a request, a question and tool arguments as text, at phone width', async () => {
    const token = `t${randomUUID().slice(0, 8)}`;
    const hostile = `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><a href="javascript:window.pwned = 3">click</a>`;
    const longLine = 'W'.repeat(10_000);
    stack.model.script(
      {
        match: token,
        toolCalls: [
          { name: 'place_order', arguments: { item: `${hostile} ${'y'.repeat(3_000)}`, quantity: 1, total: 500 } },
        ],
      },
      { match: token, text: 'Not ordered.' },
    );
    const task = await ask('test-llm', 'alice', `${hostile} ${token} ${longLine}`);
    const { context, page } = await signedIn('alice', true);
    await rowShown(page, task.id);
    const listed = row(page, task.id);
    expect(await listed.locator('.request').textContent()).toContain(hostile);
    expect(await listed.locator('.prompt').textContent()).toContain('<script>window.pwned = 1</script>');
    expect(await listed.locator('.tool-arguments').textContent()).toContain('<img src=x onerror');
    await expectInert(page);

    await page.goto(taskPage('test-llm', task.id));
    await page.locator('#question-body .prompt').waitFor();
    expect(await page.locator('#task-title').textContent()).toContain(longLine);
    const shownArguments = await page.locator('#question-body .tool-arguments').textContent();
    expect(shownArguments).toContain('<script>window.pwned = 1</script>');
    expect(shownArguments).toContain('<a href="javascript:window.pwned = 3">');
    await expectInert(page);
    // Denied with a reason: the model hears it, and the task ends.
    await page.locator('#deny-reason').fill(`no: ${hostile}`);
    await page.locator('form.deny button').click();
    await outcomeOf(page, 'Answer sent');
    expect((await settled('test-llm', task.id, 'alice')).status.state).toBe('TASK_STATE_COMPLETED');
    expect(JSON.stringify(stack.model.requestsMatching(token)[1]!.body.messages)).toContain('A human denied this call');
    await context.close();
  });

  it('refuses a state change without the CSRF token or from another origin; the session cookie; sign-out', async () => {
    const run = randomUUID().slice(0, 8);
    const task = await ask('test-ask', 'carol', `Still waiting ${run}`, { responders: ['alice'] });
    const { context, page } = await signedIn('alice');
    const response = await page.goto(`${base()}/inbox/`);
    expect(response!.headers()['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(response!.headers()['x-content-type-options']).toBe('nosniff');
    await page.locator('#inbox').waitFor();

    const [cookie] = (await context.cookies()).filter((c) => c.name === 'a2a_inbox_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/inbox' });
    const hoursLeft = (cookie!.expires * 1000 - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(7.9);
    expect(hoursLeft).toBeLessThanOrEqual(8);
    // The credential is nowhere the page keeps things.
    expect(page.url()).not.toContain(keyOf('alice'));
    expect(
      await page.evaluate(() =>
        JSON.stringify({ ...(globalThis as any).localStorage, ...(globalThis as any).sessionStorage }),
      ),
    ).not.toContain('inbox-key');
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe('');

    const reply = `${base()}/inbox/api/tasks/test-ask/${task.id}/reply`;
    const noToken = await page.evaluate(async (url) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"yes"}',
      });
      return { status: answer.status, body: await answer.json() };
    }, reply);
    expect(noToken).toMatchObject({ status: 403, body: { error: { kind: 'csrf' } } });
    const { csrfToken } = (await page.evaluate(async () => (await fetch('api/me')).json())) as { csrfToken: string };
    const asAlice = {
      cookie: `a2a_inbox_session=${cookie!.value}`,
      'x-csrf-token': csrfToken,
      'content-type': 'application/json',
    };
    const post = (headers: Record<string, string>) =>
      fetch(reply, { method: 'POST', headers: { ...asAlice, ...headers }, body: '{"text":"yes"}' });
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // A null Origin (what a no-referrer page's form sends) counts only with Sec-Fetch-Site: same-origin.
    expect((await post({ origin: 'null', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ origin: 'null' })).status).toBe(403);
    expect((await post({ 'x-csrf-token': 'forged' })).status).toBe(403);
    expect(await stateOf('test-ask', task.id, 'carol')).toBe('TASK_STATE_INPUT_REQUIRED');

    await page.locator('#who button').click();
    await page.locator('#signin').waitFor({ state: 'visible' });
    // The signed-out cookie is good for nothing any more, even replayed.
    const replayed = await fetch(`${base()}/inbox/api/questions`, { headers: { cookie: asAlice.cookie } });
    expect(replayed.status).toBe(401);
    expect((await fetch(`${base()}/inbox/api/questions`)).status).toBe(401);
    await rpc(
      'test-ask',
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'ok' }] } },
      'alice',
    );
    await context.close();
  });
});

/** Nothing the page shows ran, linked or loaded: no script, image or javascript: link came from data. */
async function expectInert(page: Page): Promise<void> {
  const found = await page.evaluate(() => {
    const { document, pwned } = globalThis as any;
    const root = document.documentElement;
    return {
      pwned,
      scripts: document.querySelectorAll('main script, main img, main a[href^="javascript:"]').length,
      overflow: root.scrollWidth - root.clientWidth,
    };
  });
  expect(found).toEqual({ pwned: undefined, scripts: 0, overflow: 0 });
}

describe.runIf(enabled)('the inbox in development mode (no authentication)', () => {
  let open: RunningGateway;
  beforeAll(async () => {
    open = await startGateway({
      agents: INBOX_AGENTS,
      client: harness.temporal,
      taskQueue: harness.worker.taskQueue,
      grpcPort: false,
    });
  });
  afterAll(() => open?.close());

  it('says so, and answers with the name given', async () => {
    const message = {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: 'Please approve an expense of 75 EUR for books' }],
    };
    const sent = await fetch(`${open.url}/agents/expense-approval`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
    });
    const task = ((await sent.json()) as any).result.task;
    const context = await newContext(stack.browser);
    const page = await context.newPage();
    await page.goto(`${open.url}/inbox/task?${new URLSearchParams({ agent: 'expense-approval', id: task.id })}`);
    await page.locator('#dev-banner').waitFor({ state: 'visible' });
    expect(await page.locator('#who').textContent()).toBe('Development mode');
    await page.locator('#dev-name').fill('Dana Dev');
    await page.locator('#dev-name').dispatchEvent('change');
    await page.locator('form.approve button').click();
    await outcomeOf(page, 'Answer sent');
    await expect
      .poll(async () => JSON.stringify(await page.locator('#artifacts').textContent()), { timeout: 10_000 })
      .toContain('Dana Dev');
    await context.close();
  });
});
