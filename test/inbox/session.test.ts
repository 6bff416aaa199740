/** The inbox's signed session cookie, without a browser: flags, tampering, expiry, revocation, the key's length. */
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import {
  SessionKeeper,
  SessionSecretError,
  sessionSecretFromEnv,
  SESSION_COOKIE,
  SESSION_SECRET_ENV,
} from '../../src/gateway/inbox/session.js';

const alice = { id: 'alice', groups: ['finance'], via: 'api-key' as const };

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
    const { header } = written(new SessionKeeper(Buffer.alloc(32, 1)), alice);
    expect(header(false)).toMatch(/; Path=\/inbox; Max-Age=(2879[89]|28800); HttpOnly; SameSite=Strict$/);
    expect(header(true)).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('read back only when signed with the same key, unaltered, unexpired and not revoked', () => {
    const keeper = new SessionKeeper(Buffer.alloc(32, 1));
    const { session, header } = written(keeper, alice);
    const value = valueOf(header(false));
    expect(keeper.read(requestWith(`other=1; ${SESSION_COOKIE}=${value}`))).toEqual(session);
    expect(new SessionKeeper(Buffer.alloc(32, 2)).read(requestWith(`${SESSION_COOKIE}=${value}`))).toBeUndefined();
    const [payload, signature] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ ...session, principal: { ...alice, id: 'mallory' } })).toString(
      'base64url',
    );
    expect(keeper.read(requestWith(`${SESSION_COOKIE}=${forged}.${signature}`))).toBeUndefined();
    expect(keeper.read(requestWith(`${SESSION_COOKIE}=${payload}`))).toBeUndefined();
    const expired = written(keeper, alice, Date.now() - 1);
    expect(keeper.read(requestWith(`${SESSION_COOKIE}=${valueOf(expired.header(false))}`))).toBeUndefined();
    keeper.revoke(session);
    expect(keeper.read(requestWith(`${SESSION_COOKIE}=${value}`))).toBeUndefined();
  });

  it('bind CSRF tokens to the session', () => {
    const keeper = new SessionKeeper(Buffer.alloc(32, 1));
    const [one, two] = [keeper.create(), keeper.create()];
    expect(keeper.checkCsrf(one, keeper.csrfToken(one))).toBe(true);
    expect(keeper.checkCsrf(one, keeper.csrfToken(two))).toBe(false);
    expect(keeper.checkCsrf(one, undefined)).toBe(false);
  });

  it('take their key from A2A_INBOX_SESSION_SECRET (32 bytes at least), else a random one', () => {
    expect(sessionSecretFromEnv({})).toMatchObject({ ephemeral: true });
    expect(sessionSecretFromEnv({ [SESSION_SECRET_ENV]: 'x'.repeat(32) })).toMatchObject({ ephemeral: false });
    expect(() => sessionSecretFromEnv({ [SESSION_SECRET_ENV]: 'short' })).toThrow(SessionSecretError);
  });
});
