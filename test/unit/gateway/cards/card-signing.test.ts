import { exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../../../src/config/settings.js';
import { cardSigner } from '../../../../src/gateway/cards/card-signing.js';

const JWKS_URL = 'https://agents.example.com/.well-known/jwks.json';
const envWith = (key: unknown) => ({ A2A_CARD_SIGNING_KEY: typeof key === 'string' ? key : JSON.stringify(key) });
/** The key as the gateway command reads and signs with it: first the variable's parser, then the signer. */
const signingOf = (env: NodeJS.ProcessEnv) => {
  const key = readSettings(env).A2A_CARD_SIGNING_KEY;
  return key && cardSigner(key, JWKS_URL);
};

describe('the agent cards’ signing key', () => {
  it('signs nothing without one', () => {
    expect(signingOf({})).toBeUndefined();
  });

  it('publishes only the public half', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const signing = signingOf(envWith({ ...(await exportJWK(privateKey)), kid: 'c', alg: 'ES256' }));
    expect(signing!.jwks.keys).toEqual([expect.not.objectContaining({ d: expect.anything() })]);
  });

  it.each([
    ['not JSON', async () => 'PEM?', /A2A_CARD_SIGNING_KEY must be a private JWK/],
    [
      'an alg its key cannot sign',
      async () => ({
        ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)),
        kid: 'c',
        alg: 'RS256',
      }),
      /A2A_CARD_SIGNING_KEY must be an ES256 \(EC P-256\) or RS256 \(RSA\) key; its "alg" is RS256 on a ec key/,
    ],
    [
      'a key whose numbers are not a key',
      async () => ({ kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA', d: 'AA', kid: 'c', alg: 'ES256' }),
      /A2A_CARD_SIGNING_KEY is not a usable private key/,
    ],
  ])('stops the gateway at start for %s', async (_, key, message) => {
    const env = envWith(await key());
    expect(() => signingOf(env)).toThrow(message);
  });
});
