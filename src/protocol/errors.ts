/**
 * Failure types task workflows reject updates with (as `ApplicationFailure.type`).
 * The gateway maps each to its A2A error; operators see the same names in the Temporal UI.
 */
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
