/**
 * One-click answers in an approval email: Approve and Deny links to a confirmation page of the
 * gateway (answer-link-page.ts), which answers only on a POST from that page. Each link carries a
 * token signed with A2A_APPROVAL_LINK_SECRET (HMAC-SHA256, the key rules of the inbox's session
 * cookies; the same value on workers and gateways), naming the task, the question (its askedAt),
 * the approver's principal and the decision, and when it expires. It answers nothing else: once its
 * question no longer waits (answered, expired, replaced by the next one) the gateway refuses it,
 * and a token posted twice answers once (the second post finds its question answered).
 *
 *   A2A_APPROVAL_LINK_SECRET  32+ bytes; set on the worker, emails carry the links; on the gateway,
 *                             it serves the confirmation page at ANSWER_LINKS_PATH
 *   A2A_APPROVAL_LINK_TTL     how long a link lasts at most (default 7 days; never past the question's deadline)
 */
import type { ApproverNotice } from '../protocol/approvals.js';
import { hmacSign, hmacVerify } from '../gateway/inbox/session.js';
import type { Settings } from '../config/settings.js';

export const ANSWER_LINK_SECRET_ENV = 'A2A_APPROVAL_LINK_SECRET';
/** The confirmation page, under the inbox (its stylesheet, its security headers). */
export const ANSWER_LINKS_PATH = '/inbox/answer';

const ANSWER_DECISIONS = ['approve', 'deny'] as const;
type AnswerDecision = (typeof ANSWER_DECISIONS)[number];

/** Domain separation: a token of this kind never verifies as another HMAC made with the same key. */
const PURPOSE = 'a2a-temporal.approval-link.v1.';

/** What a token says. */
export interface AnswerClaims {
  agent: string;
  taskId: string;
  /** The question's askedAt: the question it answers, and no other. */
  askedAt: string;
  /** The question's id, when the notice named one (a task may wait on several questions). */
  question?: string;
  /** The principal the answer is given as. */
  approver: string;
  decision: AnswerDecision;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** How the worker signs the one-click Approve / Deny links of approval emails. */
export interface AnswerLinkSettings {
  /** The HMAC key (A2A_APPROVAL_LINK_SECRET, 32 bytes or more): the same on workers and gateways. */
  secret: Buffer;
  /** The longest a link lasts (it never outlives its question's deadline). */
  ttlMs: number;
}

/** The worker's link settings, or undefined when A2A_APPROVAL_LINK_SECRET is unset (no links in emails). */
export function answerLinkSettingsFromEnv(
  env: Pick<Settings, typeof ANSWER_LINK_SECRET_ENV | 'A2A_APPROVAL_LINK_TTL'>,
): AnswerLinkSettings | undefined {
  const secret = env[ANSWER_LINK_SECRET_ENV];
  if (!secret) return undefined;
  return { secret: Buffer.from(secret, 'utf8'), ttlMs: env.A2A_APPROVAL_LINK_TTL };
}

export function mintAnswerToken(secret: Buffer, claims: AnswerClaims): string {
  const { agent: a, taskId: t, askedAt: q, question: i, approver: p, decision: d, expiresAt } = claims;
  const payload = Buffer.from(JSON.stringify({ a, t, q, i, p, d, e: Math.floor(expiresAt / 1000) })).toString(
    'base64url',
  );
  return `${payload}.${hmacSign(secret, PURPOSE + payload)}`;
}

export type TokenReading = { claims: AnswerClaims } | { problem: 'invalid' | 'expired' };

/** The token's claims when this key signed it and it has not expired. */
export function readAnswerToken(secret: Buffer, token: unknown, now = Date.now()): TokenReading {
  if (typeof token !== 'string' || token.length > 2048) return { problem: 'invalid' };
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || !hmacVerify(secret, PURPOSE + payload, signature)) {
    return { problem: 'invalid' };
  }
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return { problem: 'invalid' };
  }
  const { a, t, q, i, p, d, e } = value;
  if (
    (i !== undefined && typeof i !== 'string') ||
    typeof a !== 'string' ||
    typeof t !== 'string' ||
    typeof q !== 'string' ||
    typeof p !== 'string' ||
    typeof e !== 'number' ||
    !(ANSWER_DECISIONS as readonly unknown[]).includes(d)
  ) {
    return { problem: 'invalid' };
  }
  if (e * 1000 <= now) return { problem: 'expired' };
  return {
    claims: {
      agent: a,
      taskId: t,
      askedAt: q,
      ...(i !== undefined && { question: i }),
      approver: p,
      decision: d as AnswerDecision,
      expiresAt: e * 1000,
    },
  };
}

/** The one-click answer links of an approval email. */
export interface AnswerLinks {
  /** Opens the confirmation page of an approval. */
  approve: string;
  /** Opens the confirmation page of a denial. */
  deny: string;
}

/** The Approve and Deny links of a notice that asks (a question, a reminder); none for a note. */
export function answerLinks(
  publicUrl: string,
  settings: AnswerLinkSettings,
  notice: ApproverNotice,
  now = Date.now(),
): AnswerLinks | undefined {
  if (notice.kind !== 'ask' && notice.kind !== 'reminder') return undefined;
  const deadline = notice.deadline ? Date.parse(notice.deadline) : Number.POSITIVE_INFINITY;
  const expiresAt = Math.min(deadline, now + settings.ttlMs);
  const link = (decision: AnswerDecision) => {
    const { agent, taskId, askedAt, questionId, approver } = notice;
    const claims = { agent, taskId, askedAt, ...(questionId && { question: questionId }), approver };
    const token = mintAnswerToken(settings.secret, { ...claims, decision, expiresAt });
    return `${publicUrl}${ANSWER_LINKS_PATH}?${new URLSearchParams({ token })}`;
  };
  return { approve: link('approve'), deny: link('deny') };
}
