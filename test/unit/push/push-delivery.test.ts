/**
 * The push SSRF guard and one delivery attempt: which URLs and addresses are refused, that
 * redirects fail for good, that an error answer is read only so far, and that the guard is applied
 * again at connection time (a name allowed at save time may resolve inward later).
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_URL_REFUSED, type PushNotification } from '../../../src/protocol/push.js';
import { deliverNotification } from '../../../src/package-activities/push.js';
import { publicJwks } from '../../../src/push/signing.js';
import {
  guardedAgent,
  guardedLookup,
  inwardAddress,
  PushUrlRefusedError,
  pushUrlPolicyFromEnv,
  resolvedUrlProblem,
  urlProblem,
} from '../../../src/push/url-policy.js';
import { readSettings } from '../../../src/config/settings.js';

const nobodyAllowed = pushUrlPolicyFromEnv(readSettings({}));
const loopbackAllowed = pushUrlPolicyFromEnv(readSettings({ A2A_PUSH_ALLOWED_HOSTS: '127.0.0.1, [::1]' }));

describe('webhook URL policy', () => {
  it.each([
    ['127.0.0.1'],
    ['10.0.0.8'],
    ['172.20.1.1'],
    ['192.168.1.1'],
    ['169.254.169.254'],
    ['100.64.0.1'],
    ['0.0.0.0'],
    ['::1'],
    ['::ffff:10.0.0.1'],
    ['fe80::1'],
    ['fd00:ec2::254'],
    ['64:ff9b::a00:1'],
    // IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) forms are judged by their IPv4 address.
    ['::127.0.0.1'],
    ['::7f00:1'],
    ['::a9fe:a9fe'],
    ['::ffff:0:7f00:1'],
    ['::ffff:0:10.0.0.1'],
  ])('calls %s inward', (address) => {
    expect(inwardAddress(address)).toBeDefined();
  });

  it.each([['93.184.216.34'], ['2606:2800:220:1:248:1893:25c8:1946'], ['::ffff:8.8.8.8'], ['::ffff:0:8.8.8.8']])(
    'lets %s through',
    (address) => {
      expect(inwardAddress(address)).toBeUndefined();
    },
  );

  it('refuses schemes, credentials, inward literals in any spelling and bare names; the allow-list wins', () => {
    for (const url of [
      'file:///etc/passwd',
      'http://a:b@example.com/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.1/',
      'http://[::ffff:7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[::ffff:0:7f00:1]/',
      'http://intranet/hook',
    ]) {
      expect(urlProblem(url, nobodyAllowed), url).toMatch(/refused|must/);
    }
    expect(urlProblem('https://example.com/hook', nobodyAllowed)).toBeUndefined();
    expect(urlProblem('http://127.0.0.1:9/hook', loopbackAllowed)).toBeUndefined();
    expect(urlProblem('http://[::1]:9/hook', loopbackAllowed)).toBeUndefined();
    expect(urlProblem('http://127.0.0.2:9/hook', loopbackAllowed)).toMatch(/refused/);
  });
});

describe('one delivery attempt', () => {
  let server: Server;
  let base: string;
  const answers: Array<(res: ServerResponse) => void> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answers.shift()!(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const notification = (url: string): PushNotification => ({
    config: { id: 'c', url },
    notificationId: 't:1',
    body: { statusUpdate: { taskId: 't' } },
  });
  const attempt = (url: string, policy = loopbackAllowed) =>
    new MockActivityEnvironment().run(() => deliverNotification(notification(url), policy));

  it('fails for good on a redirect, and retryably on an error answer read only so far', async () => {
    answers.push((res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end());
    const redirect = await attempt(`${base}/hook`).catch((error: unknown) => error);
    expect(redirect).toBeInstanceOf(ApplicationFailure);
    expect(redirect).toMatchObject({ type: PUSH_URL_REFUSED, nonRetryable: true });

    answers.push((res) => res.writeHead(503).end('x'.repeat(100_000)));
    const failed = (await attempt(`${base}/hook`).catch((error: unknown) => error)) as ApplicationFailure;
    expect(failed.nonRetryable).toBe(false);
    expect(failed.message.length).toBeLessThan(1_200);
  });

  it('refuses at send time a name that resolved outward when saved and inward now (DNS rebinding)', async () => {
    const answers = ['93.184.216.34', '127.0.0.1'];
    const rebinding = {
      allowedHosts: new Set<string>(),
      resolve: ((_host: string, _options: object, callback: (error: null, found: LookupAddress[]) => void) =>
        callback(null, [{ address: answers.shift() ?? '127.0.0.1', family: 4 }])) as never,
    };
    const url = `http://hooks.example.com:${new URL(base).port}/hook`;
    expect(await resolvedUrlProblem(url, rebinding)).toBeUndefined();
    const refused = await attempt(url, rebinding).catch((error: unknown) => error);
    expect(refused).toMatchObject({ type: PUSH_URL_REFUSED, nonRetryable: true });
    expect((refused as Error).message).toMatch(/hooks\.example\.com resolves to 127\.0\.0\.1/);
  });

  it('refuses when saved a name that resolves inward', async () => {
    const inward = {
      allowedHosts: new Set<string>(),
      resolve: ((_host: string, _options: object, callback: (error: null, found: LookupAddress[]) => void) =>
        callback(null, [{ address: '10.1.2.3', family: 4 }])) as never,
    };
    expect(await resolvedUrlProblem('https://hooks.example.com/hook', inward)).toMatch(/resolves to 10\.1\.2\.3/);
  });

  it('refuses when saved IPv6 literals that embed an inward IPv4 address', async () => {
    for (const url of ['http://[::127.0.0.1]/hook', 'http://[::ffff:0:7f00:1]/hook']) {
      expect(await resolvedUrlProblem(url, nobodyAllowed), url).toMatch(/refused/);
    }
  });

  // Node connects to an IP literal without any lookup: the agent applies the guard to it itself.
  it.each([['127.0.0.1'], ['[::127.0.0.1]'], ['[::ffff:0:7f00:1]']])(
    'refuses at connection time the IP literal %s, as it refuses a name',
    async (host) => {
      const url = new URL(`http://${host}:${new URL(base).port}/hook`);
      const refused = await new Promise<unknown>((resolve) => {
        const req = request(url, { method: 'POST', agent: guardedAgent(url.protocol, nobodyAllowed) }, resolve);
        req.on('error', resolve);
        req.end();
      });
      expect(refused).toBeInstanceOf(PushUrlRefusedError);
      expect((refused as Error).message).toMatch(/loopback, private/);
    },
  );

  it('refuses at connection time a name that resolves to an IPv4-translated inward address', async () => {
    const translated = {
      allowedHosts: new Set<string>(),
      resolve: ((_host: string, _options: object, callback: (error: null, found: LookupAddress[]) => void) =>
        callback(null, [{ address: '::ffff:0:7f00:1', family: 6 }])) as never,
    };
    const looked = await new Promise<unknown>((resolve) =>
      guardedLookup(translated)('hooks.example.com', {}, ((error: unknown) => resolve(error)) as never),
    );
    expect(looked).toBeInstanceOf(PushUrlRefusedError);
  });

  it('lets an allowed IP literal connect through the guarded agent', async () => {
    answers.push((res) => res.writeHead(204).end());
    expect(await attempt(`${base}/hook`)).toBeUndefined();
    answers.push((res) => res.writeHead(204).end());
    const url = new URL(`${base}/hook`);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(url, { method: 'POST', agent: guardedAgent(url.protocol, loopbackAllowed) }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(204);
  });

  it('checks again at connection time the addresses a name resolves to then', async () => {
    // What http.request asks: the guard answers with the refusal instead of an address.
    const looked = await new Promise<unknown>((resolve) =>
      guardedLookup(nobodyAllowed)('localhost', {}, ((error: unknown) => resolve(error)) as never),
    );
    expect(looked).toBeInstanceOf(PushUrlRefusedError);
    const allowed = await new Promise<unknown>((resolve) =>
      guardedLookup(pushUrlPolicyFromEnv(readSettings({ A2A_PUSH_ALLOWED_HOSTS: 'localhost' })))('localhost', {}, ((
        error: unknown,
        address: unknown,
      ) => resolve(error ?? address)) as never),
    );
    expect(allowed).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

describe('the push signing key', () => {
  it('must be an asymmetric private JWK with kid and alg; only its public part is published', () => {
    const key = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'secret', kid: 'k1', alg: 'ES256' };
    expect(readSettings({}).A2A_PUSH_SIGNING_KEY).toBeUndefined();
    expect(readSettings({ A2A_PUSH_SIGNING_KEY: JSON.stringify(key) }).A2A_PUSH_SIGNING_KEY).toEqual(key);
    for (const bad of [
      'not json',
      JSON.stringify({ ...key, kid: undefined }),
      JSON.stringify({ kty: 'oct', k: 'x' }),
    ]) {
      expect(() => readSettings({ A2A_PUSH_SIGNING_KEY: bad }).A2A_PUSH_SIGNING_KEY).toThrow(/A2A_PUSH_SIGNING_KEY/);
    }
    expect(publicJwks(key)).toEqual({
      keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k1', alg: 'ES256', use: 'sig' }],
    });
  });
});
