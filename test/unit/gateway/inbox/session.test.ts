/** The inbox's signed session cookie, without a browser: flags, tampering, expiry, its credential, the key's length. */
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import {
  SessionKeeper,
  sessionSecretFromEnv,
  SESSION_COOKIE,
  SESSION_SECRET_ENV,
} from '../../../../src/gateway/inbox/session.js';
import { ConfigError } from '../../../../src/config/config-error.js';

const alice = { id: 'alice', groups: ['finance'], via: 'api-key' as const };
const ALICE_KEY = 'the name of alice’s key entry';
const signedIn = (notAfter?: number) => ({
  principal: alice,
  credential: ALICE_KEY,
  ...(notAfter !== undefined && { notAfter }),
});
const keeper = (secret = 1, accepted = [ALICE_KEY]) => new SessionKeeper(Buffer.alloc(32, secret), accepted);

/** The Set-Cookie header `write` produces. */
function written(keeper: SessionKeeper, ...args: Parameters<SessionKeeper['create']>) {
  const headers: string[] = [];
  const res = { append: (_name: string, value: string) => headers.push(value) } as unknown as Response;
  const session = keeper.create(...args);
  return { session, header: (secure: boolean) => (keeper.write(res, session, secure), headers.at(-1)!) };
}

const requestWith = (cookie: string) => ({ headers: { cookie } }) as Request;
const valueOf = (header: string) => header.split(';')[0]!.slice(SESSION_COOKIE.length + 1);

describe('inbox sessions', () => {
  it('are HttpOnly, SameSite=Strict, scoped to /inbox, Secure on https, and last 8 h', () => {
    const { header } = written(keeper(), signedIn());
    expect(header(false)).toMatch(/; Path=\/inbox; Max-Age=(2879[89]|28800); HttpOnly; SameSite=Strict$/);
    expect(header(true)).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('read back only when signed with the same key, unaltered and unexpired', () => {
    const sessions = keeper();
    const { session, header } = written(sessions, signedIn());
    const value = valueOf(header(false));
    expect(sessions.read(requestWith(`other=1; ${SESSION_COOKIE}=${value}`))).toEqual(session);
    expect(keeper(2).read(requestWith(`${SESSION_COOKIE}=${value}`))).toBeUndefined();
    const [payload, signature] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ ...session, principal: { ...alice, id: 'mallory' } })).toString(
      'base64url',
    );
    expect(sessions.read(requestWith(`${SESSION_COOKIE}=${forged}.${signature}`))).toBeUndefined();
    expect(sessions.read(requestWith(`${SESSION_COOKIE}=${payload}`))).toBeUndefined();
    const expired = written(sessions, signedIn(Date.now() - 1));
    expect(sessions.read(requestWith(`${SESSION_COOKIE}=${valueOf(expired.header(false))}`))).toBeUndefined();
  });

  it('are bound to their credential, keyed: refused once the gateway no longer accepts it', () => {
    const { session, header } = written(keeper(), signedIn());
    const cookie = requestWith(`${SESSION_COOKIE}=${valueOf(header(false))}`);
    expect(session.credential).not.toContain(ALICE_KEY);
    expect(keeper(1, ['another key', ALICE_KEY]).read(cookie)).toEqual(session);
    expect(keeper(1, ['another key']).read(cookie)).toBeUndefined();
    // Anonymous sessions have no credential to lose.
    const anonymous = written(keeper(), undefined);
    expect(keeper(1, []).read(requestWith(`${SESSION_COOKIE}=${valueOf(anonymous.header(false))}`))).toEqual(
      anonymous.session,
    );
  });

  it('bind CSRF tokens to the session', () => {
    const sessions = keeper();
    const [one, two] = [sessions.create(), sessions.create()];
    expect(sessions.checkCsrf(one, sessions.csrfToken(one))).toBe(true);
    expect(sessions.checkCsrf(one, sessions.csrfToken(two))).toBe(false);
    expect(sessions.checkCsrf(one, undefined)).toBe(false);
  });

  it('take their key from A2A_INBOX_SESSION_SECRET (32 bytes at least), else a random one', () => {
    expect(sessionSecretFromEnv({})).toMatchObject({ ephemeral: true });
    expect(sessionSecretFromEnv({ [SESSION_SECRET_ENV]: 'x'.repeat(32) })).toMatchObject({ ephemeral: false });
    expect(() => sessionSecretFromEnv({ [SESSION_SECRET_ENV]: 'short' })).toThrow(ConfigError);
  });
});
