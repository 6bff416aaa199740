/**
 * The decision receipts' signing activity (src/workflows/decision-receipts.ts): the key is read
 * from the worker's environment at start, so it never enters workflow history; only the JWS does.
 */
import { SIGN_RECEIPT_ACTIVITY, type DecisionFacts } from '../protocol/receipts.js';
import { receiptKeyFromEnv, receiptOf, receiptSigner } from '../receipts/receipts.js';

export function createReceiptActivities(env: NodeJS.ProcessEnv = process.env) {
  const key = receiptKeyFromEnv(env);
  const sign = key && receiptSigner(key);
  return {
    /** The decision's receipt; null without a key (the task then carries none). */
    async [SIGN_RECEIPT_ACTIVITY](facts: DecisionFacts): Promise<{ jws: string } | null> {
      return sign ? { jws: await sign(receiptOf(facts)) } : null;
    },
  };
}
