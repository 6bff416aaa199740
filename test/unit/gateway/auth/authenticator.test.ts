/**
 * The authentication core every transport calls, with real crypto: RS256 tokens verified against a
 * JWKS served over HTTP, HS256 shared secrets, hashed API keys, a trusted proxy header, and the
 * environment that configures them, where each mistake must stop the gateway with a reason.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  AuthUnavailableError,
  createAuthenticator,
  type Authenticator,
  type HeaderLookup,
} from '../../../../src/gateway/auth/authenticator.js';
import { authSettingsFromEnv, hashApiKey, type AuthSettings } from '../../../../src/gateway/auth/settings.js';
import { useTempDirs } from '../../../support/temp-dirs.js';
import { ConfigError } from '../../../../src/config/config-error.js';
import { readSettings } from '../../../../src/config/settings.js';

const temp = useTempDirs();

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'a2a-gateway';
const SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const KID = 'test-key';

let signingKey: CryptoKey;
let otherKey: CryptoKey;
let jwksServer: Server;
let jwksUrl: string;
let jwksRequests = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signingKey = pair.privateKey;
  otherKey = (await generateKeyPair('RS256')).privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' }] });
  jwksServer = createServer((_req, res) => {
    jwksRequests++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
});

afterAll(async () => {
  // jose fetches with keep-alive; idle sockets would hold close() open.
  jwksServer.closeAllConnections();
  await new Promise((resolve) => jwksServer.close(resolve));
});

/** Headers as a transport passes them: lowercase names. */
function headers(values: Record<string, string>): HeaderLookup {
  return (name) => values[name];
}

function bearer(token: string): HeaderLookup {
  return headers({ authorization: `Bearer ${token}` });
}

interface TokenOptions {
  key?: CryptoKey | Uint8Array;
  alg?: string;
  issuer?: string;
  audience?: string;
  /** Seconds from now (negative: in the past). */
  expiresIn?: number;
  subject?: string | null;
}

async function token(claims: JWTPayload = {}, options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: KID })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now - 3600)
    .setExpirationTime(now + (options.expiresIn ?? 300));
  if (options.subject !== null) jwt.setSubject(options.subject ?? 'alice');
  return jwt.sign(options.key ?? signingKey);
}

function jwtSettings(overrides: Partial<NonNullable<AuthSettings['jwt']>> = {}): AuthSettings {
  return {
    methods: ['jwt'],
    apiKeys: [],
    jwt: {
      jwksUrl,
      issuer: ISSUER,
      audience: AUDIENCE,
      clockToleranceSeconds: 30,
      groupsClaim: 'groups',
      ...overrides,
    },
  };
}

async function refusal(authenticator: Authenticator, header: HeaderLookup): Promise<AuthenticationError> {
  const error: unknown = await authenticator.authenticate(header).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AuthenticationError);
  return error as AuthenticationError;
}

describe('JWT against a JWKS', () => {
  const authenticator = () => createAuthenticator(jwtSettings());

  it('admits a valid RS256 token as its subject, with the groups claim', async () => {
    const principal = await authenticator().authenticate(bearer(await token({ groups: ['ops', 'approvers'] })));
    expect(principal).toEqual({ id: 'alice', groups: ['ops', 'approvers'], via: 'jwt' });
  });

  it('reads groups from a space- or comma-separated string, and from a configured claim', async () => {
    const spaced = await authenticator().authenticate(bearer(await token({ groups: 'ops approvers,  admins' })));
    expect(spaced?.groups).toEqual(['ops', 'approvers', 'admins']);
    const custom = createAuthenticator(jwtSettings({ groupsClaim: 'roles' }));
    expect((await custom.authenticate(bearer(await token({ roles: ['reader'] }))))?.groups).toEqual(['reader']);
    expect((await authenticator().authenticate(bearer(await token())))?.groups).toEqual([]);
  });

  it('fetches the JWKS once and reuses it', async () => {
    const shared = authenticator();
    const before = jwksRequests;
    await shared.authenticate(bearer(await token()));
    await shared.authenticate(bearer(await token()));
    expect(jwksRequests - before).toBe(1);
  });

  it('refuses a token expired beyond the clock skew, and accepts one within it', async () => {
    const expired = await refusal(authenticator(), bearer(await token({}, { expiresIn: -40 })));
    expect(expired).toMatchObject({ message: 'Invalid or expired token', challenge: 'Bearer error="invalid_token"' });
    expect(expired.detail).toMatch(/ERR_JWT_EXPIRED/);
    expect(await authenticator().authenticate(bearer(await token({}, { expiresIn: -20 })))).toMatchObject({
      id: 'alice',
    });
  });

  it('refuses the wrong audience and the wrong issuer', async () => {
    const audience = await refusal(authenticator(), bearer(await token({}, { audience: 'someone-else' })));
    expect(audience.detail).toMatch(/ERR_JWT_CLAIM_VALIDATION_FAILED \(aud\)/);
    const issuer = await refusal(authenticator(), bearer(await token({}, { issuer: 'https://evil.test' })));
    expect(issuer.detail).toMatch(/ERR_JWT_CLAIM_VALIDATION_FAILED \(iss\)/);
    expect([audience.message, issuer.message]).toEqual(['Invalid or expired token', 'Invalid or expired token']);
  });

  it('refuses a token signed by another key', async () => {
    const error = await refusal(authenticator(), bearer(await token({}, { key: otherKey })));
    expect(error.detail).toMatch(/ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });

  it('refuses alg none, an HS256 token made with the public JWKS, and garbage', async () => {
    const unsecured = new UnsecuredJWT({ sub: 'alice' }).setIssuer(ISSUER).setAudience(AUDIENCE).encode();
    expect((await refusal(authenticator(), bearer(unsecured))).detail).toMatch(/ERR_JOSE_ALG_NOT_ALLOWED/);
    const hs = await token({}, { alg: 'HS256', key: new TextEncoder().encode(SECRET) });
    expect((await refusal(authenticator(), bearer(hs))).detail).toMatch(/ERR_JOSE_ALG_NOT_ALLOWED/);
    for (const garbage of ['garbage', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30.']) {
      expect((await refusal(authenticator(), bearer(garbage))).message).toBe('Invalid or expired token');
    }
  });

  it('refuses a token without sub', async () => {
    const error = await refusal(authenticator(), bearer(await token({}, { subject: null })));
    expect(error.detail).toMatch(/sub/);
  });

  it('refuses a groups claim of the wrong type', async () => {
    const error = await refusal(authenticator(), bearer(await token({ groups: [1, 2] })));
    expect(error.detail).toMatch(/groups claim/);
  });

  it('refuses an Authorization header that is not a Bearer token', async () => {
    const error = await refusal(authenticator(), headers({ authorization: 'Basic YWxpY2U6cHc=' }));
    expect(error).toMatchObject({ challenge: 'Bearer error="invalid_request"' });
  });

  it('reports an unreachable JWKS as unavailable, not as a bad token', async () => {
    const down = createAuthenticator(jwtSettings({ jwksUrl: 'http://127.0.0.1:1/jwks.json' }));
    await expect(down.authenticate(bearer(await token()))).rejects.toBeInstanceOf(AuthUnavailableError);
  });
});

describe('JWT with a shared secret', () => {
  const authenticator = createAuthenticator({
    methods: ['jwt'],
    apiKeys: [],
    jwt: { secret: SECRET, clockToleranceSeconds: 30, groupsClaim: 'groups' },
  });

  it('names the settings tokens are checked under, never the secret in clear', () => {
    const accepted = authenticator.acceptedCredentials;
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).not.toContain(SECRET);
    expect(authenticator.credentialOf(bearer('any token'))).toBe(accepted[0]);
    const rotated = createAuthenticator({
      methods: ['jwt'],
      apiKeys: [],
      jwt: { secret: `${SECRET}-rotated`, clockToleranceSeconds: 30, groupsClaim: 'groups' },
    });
    expect(rotated.acceptedCredentials).not.toEqual(accepted);
  });

  it('admits HS256 signed with the secret, and refuses another secret', async () => {
    const key = new TextEncoder().encode(SECRET);
    const good = await token({ groups: 'ops' }, { alg: 'HS256', key });
    expect(await authenticator.authenticate(bearer(good))).toEqual({ id: 'alice', groups: ['ops'], via: 'jwt' });
    const other = await token({}, { alg: 'HS256', key: new TextEncoder().encode(`${SECRET}-other`) });
    expect((await refusal(authenticator, bearer(other))).detail).toMatch(/ERR_JWS_SIGNATURE_VERIFICATION_FAILED/);
  });

  it('refuses an RS256 token', async () => {
    expect((await refusal(authenticator, bearer(await token()))).detail).toMatch(/ERR_JOSE_ALG_NOT_ALLOWED/);
  });
});

describe('API keys', () => {
  const authenticator = createAuthenticator({
    methods: ['api-key'],
    apiKeys: [
      { sha256: hashApiKey('key-of-bob'), principal: 'bob', groups: ['ops'] },
      { sha256: hashApiKey('key-of-carol'), principal: 'carol' },
    ],
  });

  it('hashes keys as sha256 hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('admits a known key as its principal, with its groups', async () => {
    expect(await authenticator.authenticate(headers({ 'x-api-key': 'key-of-bob' }))).toEqual({
      id: 'bob',
      groups: ['ops'],
      via: 'api-key',
    });
    expect(await authenticator.authenticate(headers({ 'x-api-key': 'key-of-carol' }))).toEqual({
      id: 'carol',
      groups: [],
      via: 'api-key',
    });
  });

  it('refuses an unknown key without echoing it', async () => {
    const error = await refusal(authenticator, headers({ 'x-api-key': 'key-of-mallory' }));
    expect(error).toMatchObject({ message: 'Unknown API key', challenge: 'ApiKey' });
    expect(error.detail).not.toContain('key-of-mallory');
  });

  it('names the entry a key matches, among those accepted, for the sessions made from it', () => {
    const bob = authenticator.credentialOf(headers({ 'x-api-key': 'key-of-bob' }));
    expect(bob).toContain(hashApiKey('key-of-bob'));
    expect(bob).not.toContain('key-of-bob"');
    expect(authenticator.acceptedCredentials).toContain(bob);
    expect(authenticator.acceptedCredentials).toHaveLength(2);
    expect(authenticator.credentialOf(headers({ 'x-api-key': 'key-of-mallory' }))).toBeUndefined();
    // The same key under other groups is another entry: sessions made under the old one end.
    const regrouped = createAuthenticator({
      methods: ['api-key'],
      apiKeys: [{ sha256: hashApiKey('key-of-bob'), principal: 'bob', groups: ['ops', 'finance'] }],
    });
    expect(regrouped.acceptedCredentials).not.toContain(bob);
  });
});

const PROXY_SECRET = 'the-proxy-secret-of-at-least-32-bytes';
/** What the authenticating proxy adds to every request it forwards. */
const fromProxy = (fields: Record<string, string>) => headers({ ...fields, 'x-a2a-proxy-secret': PROXY_SECRET });

describe('trusted header', () => {
  const authenticator = createAuthenticator({
    methods: ['trusted-header'],
    apiKeys: [],
    trustedHeader: 'x-forwarded-user',
    trustedGroupsHeader: 'x-forwarded-groups',
    trustedProxySecret: PROXY_SECRET,
  });

  it('refuses the identity header without the proxy secret: a client that bypassed the proxy', async () => {
    expect((await refusal(authenticator, headers({ 'x-forwarded-user': 'erin' }))).message).toBe('Invalid credentials');
    const wrong = headers({ 'x-forwarded-user': 'erin', 'x-a2a-proxy-secret': 'guess' });
    expect((await refusal(authenticator, wrong)).message).toBe('Invalid credentials');
  });

  it('takes the caller and groups the proxy set', async () => {
    const principal = await authenticator.authenticate(
      fromProxy({ 'x-forwarded-user': 'dave@example.com', 'x-forwarded-groups': 'ops, approvers,' }),
    );
    expect(principal).toEqual({ id: 'dave@example.com', groups: ['ops', 'approvers'], via: 'trusted-header' });
    expect(await authenticator.authenticate(fromProxy({ 'x-forwarded-user': 'erin' }))).toEqual({
      id: 'erin',
      groups: [],
      via: 'trusted-header',
    });
  });

  it('counts a blank header as no credential', async () => {
    expect((await refusal(authenticator, fromProxy({ 'x-forwarded-user': '  ' }))).message).toBe(
      'Authentication required',
    );
  });
});

describe('several methods', () => {
  const authenticator = () =>
    createAuthenticator({
      ...jwtSettings(),
      methods: ['api-key', 'jwt', 'trusted-header'],
      apiKeys: [{ sha256: hashApiKey('key-of-bob'), principal: 'bob' }],
      trustedHeader: 'x-forwarded-user',
      trustedProxySecret: PROXY_SECRET,
    });

  it('admits whichever credential is present', async () => {
    expect((await authenticator().authenticate(headers({ 'x-api-key': 'key-of-bob' })))?.via).toBe('api-key');
    expect((await authenticator().authenticate(bearer(await token())))?.via).toBe('jwt');
    expect((await authenticator().authenticate(fromProxy({ 'x-forwarded-user': 'erin' })))?.via).toBe('trusted-header');
  });

  it('refuses a bad credential even when another one is good', async () => {
    const goodToken = `Bearer ${await token()}`;
    const badKey = await refusal(authenticator(), headers({ 'x-api-key': 'wrong', authorization: goodToken }));
    expect(badKey.message).toBe('Unknown API key');
    const badToken = await refusal(
      authenticator(),
      fromProxy({ 'x-api-key': 'key-of-bob', authorization: 'Bearer not-a-token', 'x-forwarded-user': 'erin' }),
    );
    expect(badToken.message).toBe('Invalid or expired token');
  });

  it('when all present credentials are good, the first method in A2A_AUTH order wins', async () => {
    const principal = await authenticator().authenticate(
      headers({ 'x-api-key': 'key-of-bob', authorization: `Bearer ${await token()}` }),
    );
    expect(principal).toMatchObject({ id: 'bob', via: 'api-key' });
  });

  it('refuses a request with no credentials, challenging with every method', async () => {
    const error = await refusal(authenticator(), headers({}));
    expect(error).toMatchObject({ message: 'Authentication required', challenge: 'ApiKey, Bearer, TrustedProxy' });
  });
});

describe('no authentication', () => {
  it('is not required and admits everyone anonymously', async () => {
    const authenticator = createAuthenticator({ methods: [], apiKeys: [] });
    expect(authenticator.required).toBe(false);
    expect(authenticator.methods).toEqual([]);
    expect(await authenticator.authenticate(headers({ 'x-api-key': 'anything' }))).toBeUndefined();
  });

  it('is required with any method', () => {
    const authenticator = createAuthenticator({ methods: ['api-key'], apiKeys: [] });
    expect(authenticator.required).toBe(true);
    expect(authenticator.methods).toEqual(['api-key']);
  });
});

describe('authSettingsFromEnv', () => {
  const bobKey = JSON.stringify([{ sha256: hashApiKey('key-of-bob'), principal: 'bob', groups: ['ops'] }]);

  it('is undefined when A2A_AUTH is unset or blank', () => {
    expect(authSettingsFromEnv(readSettings({}))).toBeUndefined();
    expect(authSettingsFromEnv(readSettings({ A2A_AUTH: ' ' }))).toBeUndefined();
  });

  it('reads none as no methods, ignoring the rest', () => {
    expect(authSettingsFromEnv(readSettings({ A2A_AUTH: 'none', A2A_API_KEYS: 'not json' }))).toEqual({
      methods: [],
      apiKeys: [],
    });
  });

  it('reads a full environment', () => {
    const settings = authSettingsFromEnv(
      readSettings({
        A2A_AUTH: 'api-key, jwt,trusted-header',
        A2A_API_KEYS: bobKey,
        A2A_JWT_JWKS_URL: 'https://issuer.test/.well-known/jwks.json',
        A2A_JWT_ISSUER: ISSUER,
        A2A_JWT_AUDIENCE: AUDIENCE,
        A2A_JWT_CLOCK_SKEW: '5',
        A2A_JWT_GROUPS_CLAIM: 'roles',
        A2A_TRUSTED_USER_HEADER: 'X-Forwarded-User',
        A2A_TRUSTED_GROUPS_HEADER: 'X-Forwarded-Groups',
        A2A_TRUSTED_PROXY_SECRET: PROXY_SECRET,
      }),
    );
    expect(settings).toEqual({
      methods: ['api-key', 'jwt', 'trusted-header'],
      apiKeys: [{ sha256: hashApiKey('key-of-bob'), principal: 'bob', groups: ['ops'] }],
      jwt: {
        jwksUrl: 'https://issuer.test/.well-known/jwks.json',
        issuer: ISSUER,
        audience: AUDIENCE,
        clockToleranceSeconds: 5,
        groupsClaim: 'roles',
      },
      trustedHeader: 'x-forwarded-user',
      trustedGroupsHeader: 'x-forwarded-groups',
      trustedProxySecret: PROXY_SECRET,
    });
  });

  it('defaults the clock skew to 30 seconds and the groups claim to groups', () => {
    expect(authSettingsFromEnv(readSettings({ A2A_AUTH: 'jwt', A2A_JWT_SECRET: SECRET }))?.jwt).toEqual({
      secret: SECRET,
      clockToleranceSeconds: 30,
      groupsClaim: 'groups',
    });
  });

  it('reads API keys from a file', async () => {
    const file = join(temp.make('a2a-auth-'), 'keys.json');
    writeFileSync(file, bobKey);
    const settings = authSettingsFromEnv(readSettings({ A2A_AUTH: 'api-key', A2A_API_KEYS_FILE: file }));
    expect(settings?.apiKeys).toEqual([{ sha256: hashApiKey('key-of-bob'), principal: 'bob', groups: ['ops'] }]);
    const principal = await createAuthenticator(settings!).authenticate(headers({ 'x-api-key': 'key-of-bob' }));
    expect(principal).toEqual({ id: 'bob', groups: ['ops'], via: 'api-key' });
  });

  it.each([
    [
      'an unknown method',
      { A2A_AUTH: 'api-key,oauth' },
      /A2A_AUTH: unknown method "oauth"\. Use none, or a comma list/,
    ],
    ['none with other methods', { A2A_AUTH: 'none,jwt' }, /A2A_AUTH: "none" cannot be combined/],
    ['api-key without keys', { A2A_AUTH: 'api-key' }, /api-key but no keys .*set A2A_API_KEYS_FILE .* or A2A_API_KEYS/],
    ['an empty key list', { A2A_AUTH: 'api-key', A2A_API_KEYS: '[]' }, /A2A_API_KEYS: no keys/],
    ['keys that are not JSON', { A2A_AUTH: 'api-key', A2A_API_KEYS: '{oops' }, /A2A_API_KEYS is not valid JSON/],
    [
      'a key that is not 64 lowercase hex',
      {
        A2A_AUTH: 'api-key',
        A2A_API_KEYS: JSON.stringify([{ sha256: hashApiKey('k').toUpperCase(), principal: 'x' }]),
      },
      /A2A_API_KEYS: entry 0 \(sha256\): sha256 must be the SHA-256 of the key as 64 lowercase hex/,
    ],
    [
      'a key in clear',
      { A2A_AUTH: 'api-key', A2A_API_KEYS: JSON.stringify([{ sha256: 'secret-key', principal: 'x' }]) },
      /entry 0 \(sha256\)/,
    ],
    [
      'a key without principal',
      { A2A_AUTH: 'api-key', A2A_API_KEYS: JSON.stringify([{ sha256: hashApiKey('k') }]) },
      /entry 0 \(principal\)/,
    ],
    [
      'a principal named like a group',
      {
        A2A_AUTH: 'api-key',
        A2A_API_KEYS: JSON.stringify([{ sha256: hashApiKey('k'), principal: 'group:finance' }]),
      },
      /entry 0 \(principal\): principal must not start with "group:"/,
    ],
    [
      'the same key twice',
      {
        A2A_AUTH: 'api-key',
        A2A_API_KEYS: JSON.stringify([
          { sha256: hashApiKey('k'), principal: 'x' },
          { sha256: hashApiKey('k'), principal: 'y' },
        ]),
      },
      /two entries have sha256/,
    ],
    [
      'both key sources',
      { A2A_AUTH: 'api-key', A2A_API_KEYS: '[]', A2A_API_KEYS_FILE: '/keys.json' },
      /A2A_API_KEYS_FILE and A2A_API_KEYS are both set/,
    ],
    [
      'a missing key file',
      { A2A_AUTH: 'api-key', A2A_API_KEYS_FILE: '/nonexistent/keys.json' },
      /A2A_API_KEYS_FILE: cannot read \/nonexistent\/keys\.json \(ENOENT\)/,
    ],
    ['jwt without a key', { A2A_AUTH: 'jwt' }, /jwt but no key .*set A2A_JWT_JWKS_URL .* or A2A_JWT_SECRET/],
    [
      'jwt with both keys',
      { A2A_AUTH: 'jwt', A2A_JWT_SECRET: SECRET, A2A_JWT_JWKS_URL: 'https://issuer.test/jwks' },
      /both set/,
    ],
    ['a JWKS URL that is not http(s)', { A2A_AUTH: 'jwt', A2A_JWT_JWKS_URL: 'file:///jwks.json' }, /A2A_JWT_JWKS_URL/],
    ['a short secret', { A2A_AUTH: 'jwt', A2A_JWT_SECRET: 'short' }, /A2A_JWT_SECRET must be at least 32 bytes/],
    [
      'a clock skew that is not seconds',
      { A2A_AUTH: 'jwt', A2A_JWT_SECRET: SECRET, A2A_JWT_CLOCK_SKEW: '30s' },
      /A2A_JWT_CLOCK_SKEW must be a whole number of seconds/,
    ],
    [
      'trusted-header without the header',
      { A2A_AUTH: 'trusted-header' },
      /trusted-header but A2A_TRUSTED_USER_HEADER is unset: set it/,
    ],
    [
      'a header name that is not one',
      { A2A_AUTH: 'trusted-header', A2A_TRUSTED_USER_HEADER: 'x user', A2A_TRUSTED_PROXY_SECRET: PROXY_SECRET },
      /A2A_TRUSTED_USER_HEADER must be a header name/,
    ],
    [
      'trusted-header without a proxy secret',
      { A2A_AUTH: 'trusted-header', A2A_TRUSTED_USER_HEADER: 'x-forwarded-user' },
      /A2A_TRUSTED_PROXY_SECRET is unset/,
    ],
    [
      'a JWKS without an audience',
      { A2A_AUTH: 'jwt', A2A_JWT_JWKS_URL: 'https://issuer.test/jwks' },
      /A2A_JWT_AUDIENCE is not/,
    ],
  ])('refuses %s', (_case, env, reason) => {
    expect(() => authSettingsFromEnv(readSettings(env))).toThrow(ConfigError);
    expect(() => authSettingsFromEnv(readSettings(env))).toThrow(reason);
  });
});
