/**
 * How a task waits for a human: `input-required` and `auth-required`, in one place.
 *
 * - `Question` (protocol/question.ts) is the question as the task shows and keeps it: who may
 *   answer, the deadline, in-band or out-of-band, the reply's JSON Schema, a remote agent's origin.
 *   Clients read it in `metadata.pendingQuestion(s)`, ListTasks from the summary memo, and it survives
 *   continue-as-new in the task record (`TaskRecord.showQuestion` sets it, any other state clears it).
 *   The agent asks a `PendingQuestion` (the same without its id): the wait gives it its id.
 * - `ReplyWait` (here) is that question while the agent waits for it in this run, with what is not
 *   persisted: the zod schema that parses the reply, the channels that tell the approvers, and the
 *   reply once it came.
 * - `waitForReply` (agent-context.ts) is the one way to wait: `ctx.ask`, `ctx.askAuth` and a remote
 *   agent's question (remote-agent-call.ts) all go through it. It is a journal step, so a run
 *   continued as new resumes the same question with its original deadline.
 * - `TaskRuntime` (task-runtime.ts) checks each reply against the wait (validateMessage,
 *   checkResponder) and hands it over (answerWait); `ApproverNotifications` tells the responders.
 */
import { condition } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { toJSONSchema, type ZodType } from 'zod';
import type { AnswerChannel } from '../protocol/answer-channel.js';
import type { PendingQuestion, Question } from '../protocol/question.js';
import type { JsonObject, WirePart } from '../protocol/wire.js';
import {
  AgentFailure,
  TaskRejection,
  type AskAuthOptions,
  type AskOptions,
  type DeadlineOutcome,
  type Reply,
} from './agent-api.js';
import type { AgentJournal } from './agent-journal.js';
import { signDecision } from './decision-receipts.js';
import type { TaskRuntime } from './task-runtime.js';
import { withDeputies } from './question-deputies.js';
import { plannedEscalations, watchEscalations } from './question-escalation.js';
import { questionExpired } from './approval-metrics.js';
import { plannedQuorumOf } from './question-quorum.js';
import { msToNumber } from '../protocol/temporal-sdk-compat.js';
import { uiText } from '../protocol/ui-text.js';

/** What a wait holds beyond its question; none of it is persisted. */
export interface ReplyWaitOptions {
  /** Parses a structured reply; a reply that does not match is refused before it is accepted. */
  schema?: ZodType;
  /** Channels (and reminders) the approvers are told by (approver-notifications.ts). */
  notify?: string[];
  remind?: string[];
  /** What happens when the question's deadline passes unanswered; failing the task by default. */
  onDeadline?: DeadlineOutcome;
  /** Ends the wait unanswered once true (a remote agent's question whose task moved on). */
  withdrawn?: () => boolean;
}

/** A question the agent waits on in this run, and the reply once it came. */
export interface ReplyWait extends Omit<ReplyWaitOptions, 'onDeadline' | 'withdrawn'> {
  readonly question: Question;
  reply?: Reply;
  /** How and when the reply came (a decision receipt says so). */
  answered?: { by: string; channel: AnswerChannel; at: string };
}

/** Asks `question` and waits for its reply, or its deadline's outcome. */
export function waitForReply(
  runtime: TaskRuntime,
  journal: AgentJournal,
  question: PendingQuestion,
  options: Omit<ReplyWaitOptions, 'withdrawn'> = {},
): Promise<Reply> {
  // Never withdrawn: a reply or the deadline's outcome.
  return waitForReplyUnlessWithdrawn(runtime, journal, question, options) as Promise<Reply>;
}

/** As waitForReply; undefined once `withdrawn` says so before a reply came. */
export function waitForReplyUnlessWithdrawn(
  runtime: TaskRuntime,
  journal: AgentJournal,
  question: PendingQuestion,
  { onDeadline, withdrawn = () => false, ...options }: ReplyWaitOptions = {},
): Promise<Reply | undefined> {
  const { record } = runtime;
  return journal.step('ask', async (resumed, place): Promise<Reply | undefined> => {
    // The journal step is the question's id: the same in every run, and unique in the task.
    const id = `ask:${place}`;
    // A question resumed after continue-as-new is the one the task kept, with the deadline it was
    // asked with (a run before question ids kept one, without its id).
    const kept = resumed ? (record.openQuestions.find((open) => open.id === id) ?? legacyQuestion(record)) : undefined;
    const asked = kept ?? { ...(await withDeputies(question, record.requester)), id };
    const wait: ReplyWait = { ...options, question: asked };
    if (!kept) runtime.askQuestion(wait.question);
    const ended = () => wait.reply !== undefined || withdrawn();
    runtime.startWaiting(wait);
    watchEscalations(runtime, wait, () => runtime.waits.get(wait.question.id) === wait && !ended());
    try {
      const { deadline, prompt } = wait.question;
      const remaining = deadline ? Date.parse(deadline) - Date.now() : undefined;
      const answered =
        remaining === undefined
          ? (await condition(ended), true)
          : await condition(ended, Math.max(remaining, 1), {
              summary: `deadline: ${uiText(prompt.slice(0, 60))}`,
            });
      if (answered && wait.reply) {
        await signDecision(runtime, wait);
        return wait.reply;
      }
      if (answered) return undefined;
      questionExpired(wait.question);
      return deadlinePassed(runtime, wait, onDeadline ?? { kind: 'fail' });
    } finally {
      runtime.stopWaiting(wait);
    }
  });
}

/** The one question a run before question ids carried over (TaskRecord.restore gives it the id ''). */
function legacyQuestion(record: TaskRuntime['record']): Question | undefined {
  return record.openQuestions.find((open) => open.id === '');
}

/** The deadline's outcome: the task fails or is rejected, or the agent goes on with a default answer. */
function deadlinePassed(runtime: TaskRuntime, wait: ReplyWait, outcome: DeadlineOutcome): Reply {
  if (outcome.kind === 'reject') throw new TaskRejection(outcome.reason ?? 'No answer before the deadline');
  if (outcome.kind === 'fail') throw new AgentFailure(outcome.reason ?? 'No answer before the deadline');
  const parts: WirePart[] = [];
  if (outcome.text) parts.push({ text: outcome.text });
  if (outcome.data !== undefined) parts.push({ data: outcome.data });
  runtime.questionClosed(wait, 'deadline');
  return {
    messageId: '',
    text: outcome.text ?? '',
    parts,
    data: outcome.data,
    value: outcome.data,
    responder: 'deadline',
    timedOut: true,
  };
}

/** `ctx.ask`'s question as the task shows it. */
export function inputQuestion(ask: AskOptions<unknown>): PendingQuestion {
  const deadline = deadlineAt(ask.deadline);
  const askedAt = new Date().toISOString();
  return {
    kind: 'input',
    prompt: ask.question,
    askedAt,
    ...(deadline && { deadline }),
    ...(ask.responders && { responders: ask.responders }),
    ...(ask.schema && { expects: ask.schema.description ?? 'a DataPart matching the agent schema' }),
    ...(ask.schema && jsonSchemaOf(ask.schema)),
    ...(ask.details && { details: ask.details }),
    ...(ask.notByRequester && { notByRequester: true }),
    ...plannedEscalations(ask.escalate, askedAt),
    ...plannedQuorumOf(ask.quorum, ask.responders),
  };
}

/** `ctx.askAuth`'s question as the task shows it. */
export function authQuestion(options: AskAuthOptions): PendingQuestion {
  const deadline = deadlineAt(options.deadline);
  return {
    kind: 'auth',
    prompt: options.message,
    askedAt: new Date().toISOString(),
    outOfBand: options.mode === 'out-of-band',
    ...(deadline && { deadline }),
    ...(options.responders && { responders: options.responders }),
  };
}

/** A question's deadline as an ISO time, `deadline` from now. */
export function deadlineAt(deadline?: Duration): string | undefined {
  return deadline === undefined ? undefined : new Date(Date.now() + msToNumber(deadline)).toISOString();
}
/**
 * The reply's schema as JSON Schema, for clients that build a form from it (the inbox). A schema
 * with parts JSON Schema cannot say (a transform, a custom check) is described as far as it can be.
 */
function jsonSchemaOf(schema: ZodType): { schema?: JsonObject } {
  try {
    return { schema: toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonObject };
  } catch {
    return {};
  }
}
