/**
 * Signed decision receipts (docs/approval-policies.md): with `A2A_RECEIPT_SIGNING_KEY` set (a
 * private JWK with `kid` and `alg`, given to workers and gateways alike), the worker signs each
 * decision as a compact JWS over the RFC 8785 canonical JSON of a DecisionReceipt, and the gateway
 * serves the public key at RECEIPTS_JWKS_PATH. Anyone holding that JWKS checks a receipt offline.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { CompactSign, compactVerify, createLocalJWKSet, errors, importJWK, type JWK } from 'jose';
import { askingParts, RECEIPT_TYPE, type DecisionFacts, type DecisionReceipt } from '../protocol/receipts.js';

/** Where the gateway serves the receipts' public keys. */
export const RECEIPTS_JWKS_PATH = '/.well-known/a2a-temporal/receipts-jwks.json';

/** SHA-256 (hex) of a JSON value's RFC 8785 canonical form. */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256')
    .update(canonicalize(value) ?? 'null')
    .digest('hex');
}

/** The receipt of a decision: what it names in clear, what it hashes. */
export function receiptOf(facts: DecisionFacts): DecisionReceipt {
  const { question } = facts;
  return {
    v: 1,
    task: facts.task,
    agent: facts.agent,
    askedAt: question.askedAt,
    question: canonicalSha256({ text: question.prompt, schema: question.schema ?? null }),
    request: canonicalSha256(askingParts(question)),
    decision: facts.decision,
    data: facts.data === undefined ? null : canonicalSha256(facts.data),
    approver: facts.approver,
    actingFor: facts.actingFor ?? null,
    channel: facts.channel,
    at: facts.at,
    ...(facts.votes && {
      votes: facts.votes.map(({ by, actingFor, decision, channel, at }) => ({
        by,
        actingFor: actingFor ?? null,
        decision,
        channel,
        at,
      })),
    }),
  };
}

/** Signs receipts with `key` (imported once). */
export function receiptSigner(key: JWK): (receipt: DecisionReceipt) => Promise<string> {
  const privateKey = importJWK(key, key.alg);
  return async (receipt) =>
    new CompactSign(new TextEncoder().encode(canonicalize(receipt)))
      .setProtectedHeader({ alg: key.alg!, kid: key.kid!, typ: RECEIPT_TYPE })
      .sign(await privateKey);
}

/** Why a receipt was refused: a sentence for the person checking it. */
export class ReceiptRefused extends Error {
  override name = 'ReceiptRefused';
}

/** The receipt a compact JWS holds, once its signature checks out against `jwks`; ReceiptRefused otherwise. */
export async function verifyReceipt(jws: string, jwks: { keys: JWK[] }): Promise<DecisionReceipt> {
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(jws.trim(), createLocalJWKSet(jwks)));
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      throw new ReceiptRefused('the signature does not match: the receipt was altered or signed by another key');
    }
    if (error instanceof errors.JWKSNoMatchingKey) throw new ReceiptRefused('no key of the JWKS signed it');
    if (error instanceof errors.JOSEError) throw new ReceiptRefused(`not a valid JWS (${error.message})`);
    throw error;
  }
  const text = new TextDecoder().decode(payload);
  let receipt: DecisionReceipt | undefined;
  try {
    receipt = JSON.parse(text) as DecisionReceipt;
  } catch {
    receipt = undefined;
  }
  // Signed as canonical JSON: anything else was not made by a2a-temporal.
  if (!receipt || canonicalize(receipt) !== text || receipt.v !== 1) {
    throw new ReceiptRefused('the payload is not a canonical a2a-temporal receipt');
  }
  return receipt;
}
