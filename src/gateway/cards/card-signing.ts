/**
 * Signed agent cards (A2A 1.0 `AgentCard.signatures`): with `A2A_CARD_SIGNING_KEY` set (a private
 * JWK with `kid` and `alg`, ES256 or RS256; its declaration checks that much), the gateway signs its v1.0 cards, the extended ones too,
 * with a JWS over the card's RFC 8785 canonical JSON without `signatures` (detached payload), and
 * serves the public key at CARD_JWKS_PATH, which each signature's `jku` names. The canonical form
 * and the JWS are the SDK's (`generateAgentCardSignature`), so that other SDKs' verifiers agree.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { AgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import type { JWK } from 'jose';
import { publicJwks } from '../../push/signing.js';
import { ConfigError } from '../../config/config-error.js';

const CARD_SIGNING_KEY_ENV = 'A2A_CARD_SIGNING_KEY';
/** Where the gateway serves the cards' public keys (one key for all its agents). */
export const CARD_JWKS_PATH = '/.well-known/jwks.json';

/** The algorithms cards are signed with, and the keys each needs. */
const ALGORITHMS: Record<string, (key: KeyObject) => boolean> = {
  ES256: (key) => key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1',
  RS256: (key) => key.asymmetricKeyType === 'rsa',
};

export interface CardSigning {
  /** The public keys, as served at CARD_JWKS_PATH. */
  jwks: { keys: JWK[] };
  /** The card with this gateway's signature. */
  sign(card: AgentCard): Promise<AgentCard>;
}

/**
 * The cards' signing with `key`; `jwksUrl` is where the gateway serves its JWKS. A key that cannot
 * sign stops the gateway at start, not at the first card request.
 */
export function cardSigner(key: JWK, jwksUrl: string): CardSigning {
  checkKey(key);
  const signer = generateAgentCardSignature(key, { alg: key.alg!, kid: key.kid!, typ: 'JOSE', jku: jwksUrl });
  return {
    jwks: publicJwks(key),
    // Signed in proto3 JSON, the form clients canonicalize (the SDK's internal form of a oneof is not).
    sign: async (card) => AgentCard.fromJSON(await signer(AgentCard.toJSON(card) as AgentCard)),
  };
}

function checkKey(key: JWK): void {
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey({ key: { ...key }, format: 'jwk' });
  } catch (error) {
    throw new ConfigError(`${CARD_SIGNING_KEY_ENV} is not a usable private key: ${(error as Error).message}`);
  }
  const fits = ALGORITHMS[key.alg!];
  if (!fits?.(keyObject)) {
    throw new ConfigError(
      `${CARD_SIGNING_KEY_ENV} must be an ES256 (EC P-256) or RS256 (RSA) key; its "alg" is ${key.alg} on a ${keyObject.asymmetricKeyType} key`,
    );
  }
}
