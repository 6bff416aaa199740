/**
 * Checks a remote agent's card against the keys the call or the project config names for it: one
 * of its `signatures` must be a JWS by one of those keys over the card as served (its canonical
 * JSON without `signatures`, the SDK's `canonicalizeAgentCard`, as the signing side computes it).
 * The card's own `jku` is never followed: whoever forged a card could name a JWKS of their own.
 */
import { AgentCard, canonicalizeAgentCard } from '@a2a-js/sdk';
import { base64url, createLocalJWKSet, createRemoteJWKSet, errors, flattenedVerify, type JWK } from 'jose';
import type { RemoteCardKeys } from '../protocol/delegation.js';
import { unusable } from './remote-failures.js';

/** One per JWKS URL for the worker's lifetime: jose caches the keys and refetches on an unknown `kid`. */
const remoteKeySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** What says the card is not signed by these keys, rather than that they could not be fetched (retried). */
const NOT_SIGNED_BY_THESE = [
  errors.JWSSignatureVerificationFailed,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JWSInvalid,
  errors.JOSENotSupported,
  errors.JOSEAlgNotAllowed,
];

/**
 * Resolves if a signature of the card, as served (its JSON, before the SDK's resolver reshapes it),
 * verifies with `keys`; else fails the call for good.
 */
export async function verifyCard(served: unknown, keys: RemoteCardKeys, cardUrl: string): Promise<void> {
  const by = 'jwksUrl' in keys ? `a key of ${keys.jwksUrl}` : 'one of the keys given';
  const { signatures } = AgentCard.fromJSON(served);
  if (signatures.length === 0) {
    throw unusable(`The agent card at ${cardUrl} is not signed, and the call requires a signature by ${by}`);
  }
  const payload = base64url.encode(canonicalizeAgentCard(served as AgentCard));
  const keySet = keySetOf(keys);
  const reasons: string[] = [];
  for (const { protected: protectedHeader, signature, header } of signatures) {
    try {
      await flattenedVerify({ payload, protected: protectedHeader, signature, ...(header && { header }) }, keySet);
      return;
    } catch (error) {
      if (!NOT_SIGNED_BY_THESE.some((type) => error instanceof type)) throw error;
      reasons.push((error as Error).message);
    }
  }
  throw unusable(`The agent card at ${cardUrl} has no valid signature by ${by}: ${reasons.join('; ')}`);
}

function keySetOf(keys: RemoteCardKeys) {
  if ('keys' in keys) return createLocalJWKSet({ keys: keys.keys as JWK[] });
  let keySet = remoteKeySets.get(keys.jwksUrl);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(keys.jwksUrl));
    remoteKeySets.set(keys.jwksUrl, keySet);
  }
  return keySet;
}
