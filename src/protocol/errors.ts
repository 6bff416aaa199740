/**
 * Failure types task workflows reject updates with (as `ApplicationFailure.type`).
 * The gateway maps each to its A2A error; operators see the same names in the Temporal UI.
 */
import type { TimelineEntry } from './contract.js';
import type { PendingQuestion } from './question.js';

export const TaskErrorType = {
  /** The task is terminal: it takes no more messages (A2A UnsupportedOperation, -32004). */
  TaskTerminal: 'TaskTerminal',
  /** Cancel on a terminal task (A2A TaskNotCancelable, -32002). */
  TaskNotCancelable: 'TaskNotCancelable',
  /** A follow-up while the task is not waiting for one (never two agent runs at once). */
  TaskNotWaitingForInput: 'TaskNotWaitingForInput',
  /** The message names another context than the task's. */
  ContextMismatch: 'ContextMismatch',
  /** The reply does not match what the pending question asked for (schema, empty message). */
  InvalidReply: 'InvalidReply',
  /** The task was addressed through another agent's endpoint (answered as TaskNotFound). */
  WrongAgent: 'WrongAgent',
  /** The sender is not among the question's allowed responders. */
  ResponderNotAllowed: 'ResponderNotAllowed',
  /** The authenticated caller is neither the task's owner nor one who may answer it (answered as TaskNotFound). */
  NotVisibleToCaller: 'NotVisibleToCaller',
  /** Only the task's owner may do this (manage push configs); an approver may not (A2A UnsupportedOperation). */
  NotTaskOwner: 'NotTaskOwner',
  /** An idempotency key that started this task came again with another message. */
  IdempotencyKeyReused: 'IdempotencyKeyReused',
} as const;

/** The failure type of a call to an activity the worker does not have (see the agents plugin). */
export const UNKNOWN_ACTIVITY = 'UnknownActivity';

export type TaskErrorType = (typeof TaskErrorType)[keyof typeof TaskErrorType];

/**
 * Where a task stood when its validator refused a reply from a caller who may see it, carried as
 * the failure's first detail (and built by the gateway for a task whose workflow has closed): what
 * a page that showed the question tells its user without reading the task again.
 */
export interface RefusedReplyStanding {
  /** The task's state, as on the wire (`TASK_STATE_…`). */
  state: string;
  /** The question waiting then, if any. */
  question?: Pick<PendingQuestion, 'kind' | 'askedAt'>;
  /** The first change recorded since the question the reply named was asked (see firstChangeSince). */
  change?: TimelineEntry;
}

/** The detail of a WrongAgent refusal: the task's own agent (told only to a caller who may see the task). */
export interface WrongAgentDetails {
  agent: string;
}

/**
 * What became of the question asked at `askedAt` (without one: of the task since it began): the
 * first change recorded at or after it that is not the question itself — who answered it, or how the
 * task ended.
 */
export function firstChangeSince(timeline: readonly TimelineEntry[], askedAt: string | undefined) {
  const since = askedAt ? Date.parse(askedAt) : 0;
  return timeline.find((entry) => Date.parse(entry.at) >= since && entry.state !== 'input-required');
}
