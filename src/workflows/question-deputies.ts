/**
 * A question's deputies (docs/approval-policies.md, Deputies), resolved from the approver directory
 * by an activity as the question opens, so the directory is read once and replay reads its answer
 * from history; the question keeps them with the directory's hash. From release 11 (task-patches.ts).
 */
import { log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { PendingQuestion } from '../protocol/contract.js';
import { RESOLVE_DEPUTIES_ACTIVITY, type ResolveDeputiesInput, type ResolvedDeputies } from '../protocol/deputies.js';
import { reasonOf } from './activity-failures.js';
import { resolvesDeputies } from './task-patches.js';

// The question waits for this: a directory that cannot be read is given up on soon (the question opens without deputies).
const RESOLVE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, maximumInterval: '10 seconds' },
  summary: 'resolve deputies',
};

type ResolveActivity = (input: ResolveDeputiesInput) => Promise<ResolvedDeputies>;

/** `question` with its deputies, when it names responders (a question to the requester alone has none). */
export async function withDeputies(question: PendingQuestion, requester: string | undefined): Promise<PendingQuestion> {
  const { responders } = question;
  if (!resolvesDeputies() || question.kind !== 'input' || !responders?.length) return question;
  try {
    const resolve = proxyActivities<Record<string, ResolveActivity>>(RESOLVE_OPTIONS)[RESOLVE_DEPUTIES_ACTIVITY]!;
    const { deputies, directoryHash } = await resolve({ responders, ...(requester && { requester }) });
    return { ...question, ...(deputies.length > 0 && { deputies }), directoryHash };
  } catch (error) {
    log.warn('deputies not resolved: the question waits for its responders alone', { reason: reasonOf(error) });
    return question;
  }
}
