/**
 * How a task waits for a human: `input-required` and `auth-required`, in one place.
 *
 * - `PendingQuestion` (protocol/contract.ts) is the question as the task shows and keeps it: who may
 *   answer, the deadline, in-band or out-of-band, the reply's JSON Schema, a remote agent's origin.
 *   Clients read it as `metadata.pendingQuestion`, ListTasks from the summary memo, and it survives
 *   continue-as-new in the task record (`TaskRecord.showQuestion` sets it, any other state clears it).
 * - `ReplyWait` (here) is that question while the agent waits for it in this run, with what is not
 *   persisted: the zod schema that parses the reply, the channels that tell the approvers, and the
 *   reply once it came.
 * - `waitForReply` (agent-context.ts) is the one way to wait: `ctx.ask`, `ctx.askAuth` and a remote
 *   agent's question (remote-agent-call.ts) all go through it. It is a journal step, so a run
 *   continued as new resumes the same question with its original deadline.
 * - `TaskRuntime` (task-runtime.ts) checks each reply against the wait (validateMessage,
 *   checkResponder) and hands it over (deliver); `ApproverNotifications` tells the responders.
 */
import type { ZodType } from 'zod';
import type { PendingQuestion } from '../protocol/contract.js';
import type { DeadlineOutcome, Reply } from './agent-api.js';

/** What a wait holds beyond its question; none of it is persisted. */
export interface ReplyWaitOptions {
  /** Parses a structured reply; a reply that does not match is refused before it is accepted. */
  schema?: ZodType;
  /** Channels (and reminders) the approvers are told by (approver-notifications.ts). */
  notify?: string[];
  remind?: string[];
  /** What happens when the question's deadline passes unanswered; failing the task by default. */
  onDeadline?: DeadlineOutcome;
}

/** The question the agent waits on in this run, and the reply once it came. */
export interface ReplyWait extends Omit<ReplyWaitOptions, 'onDeadline'> {
  readonly question: PendingQuestion;
  reply?: Reply;
}
