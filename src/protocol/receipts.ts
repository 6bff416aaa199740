/**
 * Signed decision receipts (docs/approval-policies.md): what the task workflow hands the worker's
 * signing activity when an answer decides a question, and what a receipt says. Pure: the workflow
 * sandbox and Node code import it alike. The workflow passes the facts; the activity hashes them,
 * and signs with a key that never enters workflow history (only the JWS does).
 */
import type { AnswerChannel } from './answer-channel.js';
import type { Question } from './question.js';
import type { Vote, VoteDecision } from './quorum.js';
import type { WirePart } from './wire.js';

/** Signs one decision: returns the receipt, or null when the worker has no signing key. */
export const SIGN_RECEIPT_ACTIVITY = 'a2aSignDecisionReceipt';

/** The name of the artifact a task carries each receipt in (one text part: the compact JWS). */
export const RECEIPT_ARTIFACT_NAME = 'decision-receipt';
/** The media type of a compact JWS (RFC 7515 section 9.2.1). */
export const RECEIPT_MEDIA_TYPE = 'application/jose';
/** The JWS header's `typ`: what the payload is. */
export const RECEIPT_TYPE = 'a2a-temporal-receipt+json';

/** What the workflow knows of a decision; the activity turns it into a DecisionReceipt. */
export interface DecisionFacts {
  task: string;
  agent: string;
  /** The question as asked: its text, its reply schema, its details (an LLM tool call's arguments), when. */
  question: Pick<Question, 'prompt' | 'askedAt' | 'schema' | 'details'>;
  /** The answer's text: the decision ("approve", "deny", ...). */
  decision: string;
  /** The answer's structured data, if any. */
  data?: unknown;
  approver: string;
  /** Whom the approver answered for (a deputy); absent: for themselves. */
  actingFor?: string;
  channel: AnswerChannel;
  /** When the answer was taken, ISO 8601 (the workflow's time). */
  at: string;
  /** A quorum question's votes, the deciding one (approver's) last. */
  votes?: Vote[];
}

/** What a receipt's JWS payload holds, as RFC 8785 canonical JSON. Hashes are SHA-256, lowercase hex. */
export interface DecisionReceipt {
  /** The receipt format's version. */
  v: 1;
  task: string;
  agent: string;
  /** When the question was asked (its ID within the task). */
  askedAt: string;
  /** SHA-256 of the canonical JSON of `{ text, schema }` (schema null when none). */
  question: string;
  /** SHA-256 of the canonical JSON of the asking message's parts: the question's text and details. */
  request: string;
  decision: string;
  /** SHA-256 of the canonical JSON of the answer's data; null when it had none. */
  data: string | null;
  approver: string;
  actingFor: string | null;
  channel: AnswerChannel;
  at: string;
  /** A quorum decision's votes, oldest first: every approver (and denier) by name; absent for one answer. */
  votes?: Array<{ by: string; actingFor: string | null; decision: VoteDecision; channel: AnswerChannel; at: string }>;
}

/** The parts of the message that asks a question: the workflow asks with them, a receipt's `request` hashes them. */
export function askingParts(question: Pick<DecisionFacts['question'], 'prompt' | 'details'>): WirePart[] {
  return [{ text: question.prompt }, ...(question.details ? [{ data: question.details }] : [])];
}
