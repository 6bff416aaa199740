/**
 * Inbox sessions end when they should, on every gateway sharing the session secret: sign-out ends
 * the session's open live stream at once (in Chromium), and its cookie, replayed, is refused by
 * another gateway and by one started since; a session whose API key was removed, or whose JWT was
 * checked under settings since changed, is refused; sign-in is rate limited per client address
 * (behind the authenticating proxy, the address it forwards) and per principal.
 */
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuthenticator, type Authenticator } from '../../../../src/gateway/auth/authenticator.js';
import { hashApiKey, TRUSTED_PROXY_SECRET_HEADER } from '../../../../src/gateway/auth/settings.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE, SIGN_INS_PER_MINUTE } from '../../../../src/gateway/inbox/sign-in-limit.js';
import { startGateway, type RunningGateway } from '../../../../src/gateway/server.js';
import { browserAvailable, INBOX_AGENTS, newContext, signIn, useInboxStack } from '../../../support/browser.js';

const SESSION_SECRET = 'the inbox session secret all the gateways share';
const JWT_SECRET = 'the HS256 secret the identity provider signs with';
const PROXY_SECRET = 'the secret only the authenticating proxy sends';
const keyOf = (person: string) => `sessions-key-of-${person}-${'k'.repeat(16)}`;

/** API keys for `people` (finance), JWTs under `jwtSecret`, and a proxy that may forward sign-ins. */
function authenticatorFor(people: string[], jwtSecret = JWT_SECRET): Authenticator {
  return createAuthenticator({
    methods: ['api-key', 'jwt', 'trusted-header'],
    apiKeys: people.map((person) => ({ sha256: hashApiKey(keyOf(person)), principal: person, groups: ['finance'] })),
    jwt: { secret: jwtSecret, clockToleranceSeconds: 30, groupsClaim: 'groups' },
    trustedHeader: 'x-forwarded-user',
    trustedProxySecret: PROXY_SECRET,
  });
}

const enabled = browserAvailable();
const { stack, harness } = useInboxStack(authenticatorFor(['alice', 'bob']), enabled, {
  sessionSecret: SESSION_SECRET,
});

/** More gateways in front of the same Temporal and worker, with the same session secret. */
const started: RunningGateway[] = [];
afterAll(() => Promise.all(started.map((gateway) => gateway.close())));
async function anotherGateway(authenticator = authenticatorFor(['alice', 'bob'])): Promise<RunningGateway> {
  const gateway = await startGateway({
    agents: INBOX_AGENTS,
    client: harness.temporal,
    taskQueue: harness.worker.taskQueue,
    grpcPort: false,
    authenticator,
    inbox: { sessionSecret: SESSION_SECRET },
  });
  started.push(gateway);
  return gateway;
}

const cookieOf = (response: Response) => response.headers.get('set-cookie')?.split(';')[0];

/** A request as the pages make it: with the session cookie, and its CSRF token for a POST. */
async function api(url: string, path: string, cookie?: string, body?: unknown, headers: Record<string, string> = {}) {
  const given = { ...headers, ...(cookie && { cookie }) };
  if (body === undefined) return fetch(`${url}/inbox/api${path}`, { headers: given });
  const me = await fetch(`${url}/inbox/api/me`, { headers: given });
  const { csrfToken } = (await me.json()) as { csrfToken: string };
  const session = cookie ?? cookieOf(me)!;
  return fetch(`${url}/inbox/api${path}`, {
    method: 'POST',
    headers: { ...headers, cookie: session, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Signs in through the form's API; the signed-in cookie, or the refusal. */
async function signInOver(url: string, method: 'api-key' | 'jwt', credential: string, headers = {}) {
  const response = await api(url, '/session', undefined, { method, credential }, headers);
  return { status: response.status, retryAfter: response.headers.get('retry-after'), cookie: cookieOf(response) };
}

/** What a signed-in request with `cookie` gets: 200, or 401 when the session is no good. */
const listStatus = async (url: string, cookie: string) => (await api(url, '/questions', cookie)).status;

const jwtOf = (sub: string, secret = JWT_SECRET) =>
  new SignJWT({ groups: ['finance'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));

describe.runIf(enabled)('inbox sessions that end when they should', () => {
  it('signing out in another tab ends the list page’s live stream at once', async () => {
    const context = await newContext(stack.browser);
    const list = await context.newPage();
    await signIn(list, harness.gateway.url, keyOf('alice'));
    await expect.poll(() => list.locator('#list-status').textContent(), { timeout: 10_000 }).toMatch(/wait/);
    const streamEnded = list.waitForEvent('requestfinished', {
      predicate: (request) => request.url().includes('/inbox/api/live'),
      timeout: 10_000,
    });

    const other = await context.newPage();
    await other.goto(`${harness.gateway.url}/inbox/`);
    const signedOut = other.waitForResponse((response) => response.url().endsWith('/inbox/api/signout'));
    await other.locator('#who button').click();
    await signedOut;
    const at = Date.now();
    await streamEnded;
    await list.locator('#signin').waitFor({ state: 'visible', timeout: 5_000 });
    const ms = Date.now() - at;
    console.log(`inbox: the list page's stream ended and it showed the sign-in form ${ms} ms after the sign-out`);
    expect(ms).toBeLessThan(2_000);
    await context.close();
  });

  it('signing out through another gateway ends the stream within the re-check period', async () => {
    const elsewhere = await anotherGateway();
    const context = await newContext(stack.browser);
    const list = await context.newPage();
    await signIn(list, harness.gateway.url, keyOf('bob'));
    await expect.poll(() => list.locator('#list-status').textContent(), { timeout: 10_000 }).toMatch(/wait/);
    const [session] = (await context.cookies()).filter((cookie) => cookie.name === 'a2a_inbox_session');
    expect((await api(elsewhere.url, '/signout', `a2a_inbox_session=${session!.value}`, {})).status).toBe(200);
    const at = Date.now();
    await list.locator('#signin').waitFor({ state: 'visible', timeout: 10_000 });
    const ms = Date.now() - at;
    console.log(`inbox: a stream on one gateway ended ${ms} ms after a sign-out through another`);
    expect(ms).toBeLessThan(7_000);
    await context.close();
  });

  it('a signed-out cookie, replayed, is refused by another gateway and by one started since', async () => {
    const other = await anotherGateway();
    const { cookie } = await signInOver(harness.gateway.url, 'api-key', keyOf('alice'));
    expect(await listStatus(other.url, cookie!)).toBe(200);
    expect((await api(harness.gateway.url, '/signout', cookie, {})).status).toBe(200);
    expect(await listStatus(other.url, cookie!)).toBe(401);
    expect(await listStatus(harness.gateway.url, cookie!)).toBe(401);
    const restarted = await anotherGateway();
    expect(await listStatus(restarted.url, cookie!)).toBe(401);

    // What checking the sign-out records costs a signed-in request (one describe in Temporal).
    const fresh = (await signInOver(harness.gateway.url, 'api-key', keyOf('alice'))).cookie!;
    const median = async (cookie?: string) => {
      const times: number[] = [];
      for (let i = 0; i < 30; i++) {
        const start = performance.now();
        await api(harness.gateway.url, '/me', cookie);
        times.push(performance.now() - start);
      }
      return times.sort((a, b) => a - b)[15]!;
    };
    const [anonymous, signedIn] = [await median(), await median(fresh)];
    console.log(`inbox: GET /me median ${anonymous.toFixed(1)} ms anonymous, ${signedIn.toFixed(1)} ms signed in`);
  });

  it('a session whose API key was removed, or whose JWT settings changed, is refused by every gateway', async () => {
    const alice = (await signInOver(harness.gateway.url, 'api-key', keyOf('alice'))).cookie!;
    const bob = (await signInOver(harness.gateway.url, 'api-key', keyOf('bob'))).cookie!;
    const carol = (await signInOver(harness.gateway.url, 'jwt', await jwtOf('carol'))).cookie!;
    for (const cookie of [alice, bob, carol]) expect(await listStatus(harness.gateway.url, cookie)).toBe(200);
    // Alice's key removed from A2A_API_KEYS, on a gateway (re)started with the new list.
    const withoutAlice = await anotherGateway(authenticatorFor(['bob']));
    expect(await listStatus(withoutAlice.url, alice)).toBe(401);
    expect(await listStatus(withoutAlice.url, bob)).toBe(200);
    expect(await listStatus(withoutAlice.url, carol)).toBe(200);
    // The identity provider's secret rotated: tokens checked under the old one no longer hold.
    const rotated = await anotherGateway(authenticatorFor(['alice', 'bob'], `${JWT_SECRET} rotated`));
    expect(await listStatus(rotated.url, carol)).toBe(401);
    expect(await listStatus(rotated.url, alice)).toBe(200);
  });

  it('limits sign-in attempts per client address (as the proxy forwards it) and sign-ins per principal: 429, Retry-After', async () => {
    const gateway = await anotherGateway();
    const attempts = await Promise.all(
      Array.from({ length: 100 }, () => signInOver(gateway.url, 'api-key', 'a wrong key, guessed')),
    );
    const statuses = attempts.map((attempt) => attempt.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(SIGN_IN_ATTEMPTS_PER_MINUTE);
    expect(statuses.filter((status) => status === 429)).toHaveLength(100 - SIGN_IN_ATTEMPTS_PER_MINUTE);
    const limited = attempts.find((attempt) => attempt.status === 429)!;
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(60);
    // The right key too: the address has no attempt left.
    expect((await signInOver(gateway.url, 'api-key', keyOf('alice'))).status).toBe(429);
    // A client cannot pose as other addresses: X-Forwarded-For counts only from the proxy.
    const forged = await signInOver(gateway.url, 'api-key', keyOf('alice'), { 'x-forwarded-for': '203.0.113.7' });
    expect(forged.status).toBe(429);

    // Through the proxy, each client its own address; alice signing in from everywhere runs out.
    const viaProxy = (client: number) => ({
      [TRUSTED_PROXY_SECRET_HEADER]: PROXY_SECRET,
      'x-forwarded-for': `198.51.100.${client % 250}, 10.0.0.${client % 250}`,
    });
    const asAlice = [];
    for (let client = 0; client <= SIGN_INS_PER_MINUTE; client++) {
      asAlice.push(await signInOver(gateway.url, 'api-key', keyOf('alice'), viaProxy(client)));
    }
    expect(asAlice.slice(0, SIGN_INS_PER_MINUTE).map((attempt) => attempt.status)).toEqual(
      Array(SIGN_INS_PER_MINUTE).fill(200),
    );
    expect(asAlice.at(-1)).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/) });
    expect((await signInOver(gateway.url, 'api-key', keyOf('bob'), viaProxy(0))).status).toBe(200);
  });
});
