/**
 * A question's deputies (docs/approval-policies.md, Deputies), resolved from the approver directory
 * by an activity as the question opens, so the directory is read once and replay reads its answer
 * from history; the question keeps them with the directory's hash. From release 11 (task-patches.ts).
 * From release 17, an escalation reads those of the approvers it adds the same way.
 */
import { log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { PendingQuestion, PlannedEscalation } from '../protocol/question.js';
import {
  RESOLVE_DEPUTIES_ACTIVITY,
  type Deputy,
  type ResolveDeputiesInput,
  type ResolvedDeputies,
} from '../protocol/deputies.js';
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
  const resolved = await resolveDeputies({ responders, ...(requester && { requester }) });
  if (!resolved) return question;
  const { deputies, directoryHash } = resolved;
  return { ...question, ...(deputies.length > 0 && { deputies }), directoryHash };
}

/** A question's deputies after an escalation, and the directory they came from (absent: it could not be read). */
export interface EscalationDeputies {
  deputies: Deputy[];
  directoryHash?: string;
}

/**
 * The question's deputies once `step` happened (release 17): those of the approvers it adds, read
 * from the directory now, beside those it had unless it moves (those it leaves no longer act for
 * anyone here).
 */
export async function deputiesAfterEscalation(
  question: PendingQuestion,
  step: PlannedEscalation,
  requester: string | undefined,
): Promise<EscalationDeputies> {
  const kept = step.mode === 'move' ? [] : (question.deputies ?? []);
  const resolved = await resolveDeputies({ responders: step.to, ...(requester && { requester }) });
  const added = (resolved?.deputies ?? []).filter(
    (deputy) => !kept.some((known) => known.to === deputy.to && known.for === deputy.for),
  );
  return { deputies: [...kept, ...added], ...(resolved && { directoryHash: resolved.directoryHash }) };
}

/** The directory activity's answer; undefined when the directory cannot be read (the question waits without them). */
async function resolveDeputies(input: ResolveDeputiesInput): Promise<ResolvedDeputies | undefined> {
  try {
    return await proxyActivities<Record<string, ResolveActivity>>(RESOLVE_OPTIONS)[RESOLVE_DEPUTIES_ACTIVITY]!(input);
  } catch (error) {
    log.warn('deputies not resolved: the question waits for its responders alone', { reason: reasonOf(error) });
    return undefined;
  }
}
