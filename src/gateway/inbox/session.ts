/**
 * The inbox's browser sessions: a signed cookie, no server-side store, so any gateway holding the
 * same key serves any session. The cookie carries a session id (what CSRF tokens are bound to), its
 * expiry and, once signed in with an API key or a JWT, the principal it was exchanged for and, keyed,
 * the name of the credential that was accepted (Authenticator.credentialOf): never the credential
 * itself. A session is read back only while the gateway still accepts that credential, so a key
 * removed from A2A_API_KEYS, or a changed JWT setting, ends it on every gateway at its next request.
 * Sign-out is recorded in Temporal (sign-outs.ts), for every gateway to see.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal.js';
import { ConfigError } from '../../config/config-error.js';

export const SESSION_COOKIE = 'a2a_inbox_session';
export const SESSION_SECRET_ENV = 'A2A_INBOX_SESSION_SECRET';
/** An HMAC-SHA256 key shorter than the hash adds nothing but weakness (RFC 2104 §3). */
const MIN_SESSION_SECRET_BYTES = 32;
const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

export interface Session {
  /** Random, per sign-in: CSRF tokens are bound to it, and sign-out records it. */
  id: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  principal?: Principal;
  /** With `principal`: the credential it signed in with, as `credentialOf` names it, keyed with the session key. */
  credential?: string;
}

/** What a sign-in makes a session of. */
export interface SignedIn {
  principal: Principal;
  /** Authenticator.credentialOf of the credential accepted. */
  credential: string;
  /** The session ends then at the latest (a JWT's own expiry). */
  notAfter?: number;
}

/** The key from the environment, or a random one (then `ephemeral`: sessions end with the process). */
export function sessionSecretFromEnv(env: NodeJS.ProcessEnv): { secret: Buffer; ephemeral: boolean } {
  const secret = hmacSecretFromEnv(env, SESSION_SECRET_ENV);
  if (!secret) return { secret: randomBytes(MIN_SESSION_SECRET_BYTES), ephemeral: true };
  return { secret, ephemeral: false };
}

/**
 * An HMAC key read from `variable` (undefined when unset), refused when shorter than
 * MIN_SESSION_SECRET_BYTES. Also the key of other gateway-signed tokens (the email answer links).
 */
function hmacSecretFromEnv(env: NodeJS.ProcessEnv, variable: string): Buffer | undefined {
  const value = env[variable]?.trim();
  if (!value) return undefined;
  const secret = Buffer.from(value, 'utf8');
  if (secret.length < MIN_SESSION_SECRET_BYTES) {
    throw new ConfigError(
      `${variable} must be at least ${MIN_SESSION_SECRET_BYTES} bytes (e.g. \`openssl rand -base64 48\`)`,
    );
  }
  return secret;
}

/** HMAC-SHA256 of `text` under `secret`, base64url. */
export function hmacSign(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('base64url');
}

/** Whether `signature` is `hmacSign(secret, text)`, compared in constant time. */
export function hmacVerify(secret: Buffer, text: string, signature: string): boolean {
  const expected = Buffer.from(hmacSign(secret, text), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export class SessionKeeper {
  /** The credentials the gateway accepts now, keyed as sessions hold them. */
  private readonly accepted: ReadonlySet<string>;

  constructor(
    private readonly secret: Buffer,
    acceptedCredentials: readonly string[],
    readonly ttlMs = DEFAULT_SESSION_TTL_MS,
  ) {
    this.accepted = new Set(acceptedCredentials.map((name) => this.credentialKey(name)));
  }

  /** A new session: anonymous, or signed in. */
  create(signedIn?: SignedIn): Session {
    const expiresAt = Math.min(Date.now() + this.ttlMs, signedIn?.notAfter ?? Number.POSITIVE_INFINITY);
    const id = randomBytes(18).toString('base64url');
    if (!signedIn) return { id, expiresAt };
    return { id, expiresAt, principal: signedIn.principal, credential: this.credentialKey(signedIn.credential) };
  }

  /** The request's session, when its cookie is well signed, unexpired and its credential still accepted. */
  read(req: Request): Session | undefined {
    const value = cookieValue(req.headers.cookie, SESSION_COOKIE);
    if (!value) return undefined;
    const [payload, signature] = value.split('.');
    if (!payload || !signature || !this.verify(payload, signature)) return undefined;
    const session = parseSession(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!session || session.expiresAt <= Date.now()) return undefined;
    if (session.principal && !(session.credential !== undefined && this.accepted.has(session.credential))) {
      return undefined;
    }
    return session;
  }

  write(res: Response, session: Session, secure: boolean): void {
    const payload = Buffer.from(JSON.stringify(session), 'utf8').toString('base64url');
    const maxAge = Math.max(0, Math.floor((session.expiresAt - Date.now()) / 1000));
    res.append('Set-Cookie', cookie(`${payload}.${this.sign(payload)}`, maxAge, secure));
  }

  /** The CSRF token of a session: only this gateway's key makes it, only this session's id matches it. */
  csrfToken(session: Session): string {
    return this.sign(`csrf.${session.id}`);
  }

  checkCsrf(session: Session, token: string | undefined): boolean {
    return token !== undefined && this.verify(`csrf.${session.id}`, token);
  }

  /**
   * Keyed, so that the cookie, which its holder can read, tells nothing about the key behind it
   * (an API key's SHA-256 could be guessed offline from a weak key).
   */
  private credentialKey(name: string): string {
    return this.sign(`credential.${name}`);
  }

  private sign(text: string): string {
    return hmacSign(this.secret, text);
  }

  private verify(text: string, signature: string): boolean {
    return hmacVerify(this.secret, text, signature);
  }
}

/**
 * HttpOnly: page scripts never see it; SameSite=Strict: no other site's page or link sends it;
 * Path=/inbox: the A2A endpoints never receive it (they authenticate by header only).
 */
function cookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const flags = [
    `Path=/inbox`,
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ];
  return [`${SESSION_COOKIE}=${value}`, ...flags].join('; ');
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const [key, ...rest] = pair.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function parseSession(text: string): Session | undefined {
  try {
    const value = JSON.parse(text) as Partial<Session>;
    if (typeof value.id !== 'string' || typeof value.expiresAt !== 'number') return undefined;
    return value as Session;
  } catch {
    return undefined;
  }
}
