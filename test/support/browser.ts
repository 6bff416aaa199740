/**
 * A real browser for the inbox tests: Debian's Chromium driven by playwright-core (no browser
 * download). Without /usr/bin/chromium the browser tests are skipped, saying so, except under CI,
 * where a missing browser is a failure (.ci/run installs it).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import agents from '../../examples/agents/index.js';
import { createAuthenticator, type Authenticator } from '../../src/gateway/auth/authenticator.js';
import { hashApiKey } from '../../src/gateway/auth/settings.js';
import type { InboxSettings } from '../../src/gateway/inbox/index.js';
import { askingAgent, askingTwiceAgent, llmAgent } from './agents/test-agents.js';
import { useGatewayHarness } from './gateway-harness.js';
import { startFakeModelServer, type FakeModelServer } from '../../src/testing/fake-model-server.js';

const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests run; prints why not when they do not. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);
  console.warn(`Skipping the inbox browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);
  return false;
}

/**
 * Each launch gets a fresh profile in a temporary directory (Playwright makes one per launch and
 * removes it on close); each context within it has its own cookie jar, a browser of its own.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A phone-width browser, or desktop width. */
export function newContext(browser: Browser, phone = false): Promise<BrowserContext> {
  return browser.newContext(
    phone ? { viewport: { width: 390, height: 844 } } : { viewport: { width: 1200, height: 900 } },
  );
}

/** Signs in with an API key through the sign-in form. */
export async function signIn(page: Page, baseUrl: string, apiKey: string): Promise<void> {
  await page.goto(`${baseUrl}/inbox/`);
  await page.locator('#signin-credential').fill(apiKey);
  await page.locator('#signin-form button[type=submit]').click();
  await page.locator('#inbox').waitFor({ state: 'visible' });
}

export function row(page: Page, taskId: string) {
  return page.locator(`#questions li[data-task="${taskId}"]`);
}

/** Waits until `taskId`'s row is shown. */
export async function rowShown(page: Page, taskId: string, timeout = 10_000): Promise<void> {
  await row(page, taskId).waitFor({ state: 'visible', timeout });
}

export async function outcomeOf(page: Page, text: string | RegExp): Promise<void> {
  await expect.poll(() => page.locator('#outcome').textContent(), { timeout: 10_000 }).toMatch(text);
}

/** A test's people, each with an API key of their own (`prefix` keeps files apart), and the gateway's authenticator of them. */
export function apiKeyPeople<Person extends string>(prefix: string, people: Record<Person, readonly string[]>) {
  const keyOf = (person: Person) => `${prefix}-key-of-${person}-${'k'.repeat(16)}`;
  const entries = Object.entries(people) as Array<[Person, readonly string[]]>;
  const authenticator = createAuthenticator({
    methods: ['api-key'],
    apiKeys: entries.map(([person, groups]) => ({
      sha256: hashApiKey(keyOf(person)),
      principal: person,
      groups: [...groups],
    })),
  });
  return { keyOf, authenticator };
}

/** A JSON-RPC call to the agent at `agentUrl` with an API key; its result, or throws its error. */
export async function rpcWithKey(agentUrl: string, apiKey: string, method: string, params: unknown): Promise<any> {
  const response = await fetch(agentUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'x-api-key': apiKey },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as any;
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

/** Sends a new task's first message (its text, and `data` as a DataPart) with an API key; the task as answered. */
export async function sendFirstMessage(agentUrl: string, apiKey: string, text: string, data?: object): Promise<any> {
  const parts = [{ text }, ...(data ? [{ data }] : [])];
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts };
  return (await rpcWithKey(agentUrl, apiKey, 'SendMessage', { message })).task;
}

/** The agents an inbox test serves: the examples, a question of any shape, an LLM agent. */
export const INBOX_AGENTS = [...agents, askingAgent, askingTwiceAgent, llmAgent];

/** A file's browser and fake model server, started before its tests; nothing when `enabled` is false. */
export function useBrowser(enabled: boolean) {
  const stack = {} as { model: FakeModelServer; browser: Browser };
  beforeAll(async () => {
    if (!enabled) return;
    stack.model = await startFakeModelServer();
    stack.browser = await launchBrowser();
  });
  afterAll(async () => {
    await stack.browser?.close();
    await stack.model?.close();
  });
  return stack;
}

/**
 * A file's inbox stack: a fake model server, a gateway with `authenticator` (and a worker, a dev
 * server) serving INBOX_AGENTS, and a browser; nothing when `enabled` is false.
 */
export function useInboxStack(authenticator: Authenticator, enabled: boolean, inbox?: InboxSettings) {
  const stack = useBrowser(enabled);
  const harness = useGatewayHarness(() => ({
    model: { baseURL: stack.model.url, model: 'fake-model' },
    gateway: { agents: INBOX_AGENTS, authenticator, grpcPort: false, ...(inbox && { inbox }) },
  }));
  return { stack, harness };
}
