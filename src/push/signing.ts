/**
 * Signed push notifications: with `A2A_PUSH_SIGNING_KEY` set (a private JWK with `kid` and `alg`,
 * given to workers and gateways alike), every notification carries a JWT over its body, and the
 * gateway serves the public key at PUSH_JWKS_PATH, which the card names, so a receiver can check
 * that a notification comes from this server and was not altered. The JWT travels in a header of
 * its own: `Authorization` belongs to the config's credentials.
 */
import { createHash } from 'node:crypto';
import { importJWK, SignJWT, type JWK } from 'jose';
export const NOTIFICATION_SIGNATURE_HEADER = 'X-A2A-Notification-Signature';
/** Where the gateway serves the public keys (one set for every agent: the workers sign for all). */
export const PUSH_JWKS_PATH = '/.well-known/a2a-push-jwks.json';
/** The card's extension that names the JWKS URL (the v1.0 card has no field of its own for it). */
export const PUSH_SIGNING_EXTENSION = 'urn:a2a-temporal:push-signing:v1';
/** A signature older than this is a replay, not a retry (each attempt signs anew). */
const SIGNATURE_LIFETIME = '5m';
/** Members of a JWK that are private (RFC 7518 section 6): never published. */
const PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

/** The JWKS receivers verify with: the key without its private members. */
export function publicJwks(key: JWK): { keys: JWK[] } {
  const publicKey = Object.fromEntries(Object.entries(key).filter(([member]) => !PRIVATE_MEMBERS.has(member)));
  return { keys: [{ ...publicKey, use: 'sig' }] };
}

export type NotificationSigner = (body: Uint8Array, notificationId: string) => Promise<string>;

/** Signs `{iat, exp, jti: notification ID, request_body_sha256}`; the key is imported once. */
export function notificationSigner(key: JWK): NotificationSigner {
  const privateKey = importJWK(key, key.alg);
  return async (body, notificationId) =>
    new SignJWT({ request_body_sha256: createHash('sha256').update(body).digest('hex') })
      .setProtectedHeader({ alg: key.alg!, kid: key.kid!, typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(SIGNATURE_LIFETIME)
      .setJti(notificationId)
      .sign(await privateKey);
}
