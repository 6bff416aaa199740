/**
 * The decision receipts' signing activity (src/workflows/decision-receipts.ts): the key is read
 * from the worker's settings at start, so it never enters workflow history; only the JWS does.
 */
import { SIGN_RECEIPT_ACTIVITY, type DecisionFacts } from '../protocol/receipts.js';
import type { JWK } from 'jose';
import { receiptOf, receiptSigner } from '../receipts/receipts.js';

export function createReceiptActivities(key: JWK | undefined) {
  const sign = key && receiptSigner(key);
  return {
    /** The decision's receipt; null without a key (the task then carries none). */
    async [SIGN_RECEIPT_ACTIVITY](facts: DecisionFacts): Promise<{ jws: string } | null> {
      return sign ? { jws: await sign(receiptOf(facts)) } : null;
    },
  };
}
