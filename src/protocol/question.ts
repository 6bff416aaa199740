/**
 * A question a task asks a person (`ctx.ask`, `ctx.askAuth`, a remote agent's carried up): the one
 * definition of what a question is. The workflow keeps it (task-record.ts, reply-wait.ts), the
 * task's metadata and its summary memo show it, the notices and the inbox read it; where a place
 * keeps less, its type is derived from `Question` here (or picks from it), so that a field added to
 * a question is added once. Pure: the workflow sandbox, the worker, the gateway and the CLI import it.
 */
import type { Deputy } from './deputies.js';
import type { QuorumState, Vote } from './quorum.js';
import type { JsonObject } from './wire.js';

export interface Question {
  /**
   * Stable for the task's life (`ask:<journal step>`), and names the question in a reply
   * (ANSWERS_QUESTION_METADATA) while it is open beside others (docs/a2a-mapping.md, "Several open
   * questions"); '' for the one question a run before question ids carried over.
   */
  id: string;
  kind: 'input' | 'auth';
  prompt: string;
  askedAt: string;
  deadline?: string;
  responders?: string[];
  /** Human-readable summary of the expected structured reply, when a schema was given. */
  expects?: string;
  /** The expected structured reply (a DataPart) as JSON Schema, when a schema was given. */
  schema?: JsonObject;
  /** Out-of-band auth: the answer comes through the completeAuth update, not a message. */
  outOfBand?: boolean;
  /** Structured data about the question (e.g. the tool call awaiting approval); also a DataPart of the status message. */
  details?: JsonObject;
  /** The task's owner may not answer (no self-approval). */
  notByRequester?: boolean;
  /**
   * A remote agent's question, carried up from the task this one delegated to (ctx.callAgent).
   * `via`: when that agent carried it up in turn, the agents below it, nearest first: the last asked.
   */
  from?: QuestionHop & { via?: QuestionHop[] };
  /** Who may answer for one of its approvers, and when (deputies.ts); resolved when it was asked. */
  deputies?: Deputy[];
  /** SHA-256 of the approver directory its deputies were resolved from (present once they were). */
  directoryHash?: string;
  /** Escalations still to come (release 13, question-escalation.ts), earliest first. */
  escalate?: PlannedEscalation[];
  /** The escalations that happened, oldest first: the inbox says the question was escalated. */
  escalated?: Escalation[];
  /** A quorum question's rules and tally (release 16, quorum.ts): who is still needed. */
  quorum?: QuorumState;
  /** A quorum question's votes so far, oldest first. */
  votes?: Vote[];
}

/**
 * A question before its wait gives it its id (reply-wait.ts), and the earliest open one as
 * `metadata.pendingQuestion` shows it (without its id: a reply need not name it).
 */
export type PendingQuestion = Omit<Question, 'id'>;

/**
 * A question where its id may be missing: as a task's metadata shows it (`pendingQuestions` entries
 * have theirs, `pendingQuestion` none), or kept by a run before question ids.
 */
export type QuestionView = PendingQuestion & Partial<Pick<Question, 'id'>>;

/**
 * A question as the summary memo lists it (TaskRecord.summary), the rows of the inbox and of the
 * CLI's `inbox` read: its prompt capped, its details only while small, and no schema (read the task).
 */
export type ListedQuestion = Omit<QuestionView, 'schema'>;

/**
 * A task's open questions as its metadata and its summary memo show them (TaskRecord): every one
 * while several are open (`pendingQuestions`), else the one (`pendingQuestion`, without its id).
 */
export function questionsShown<Q>(metadata: { pendingQuestion?: Q; pendingQuestions?: Q[] } | undefined): Q[] {
  return metadata?.pendingQuestions ?? (metadata?.pendingQuestion ? [metadata.pendingQuestion] : []);
}

/** One agent a carried-up question came through, or the one that asked it. */
export interface QuestionHop {
  agent: string;
  taskId: string;
  url: string;
}

/** What happens to a question's responders at an escalation: more may answer, or others instead. */
export type EscalationMode = 'widen' | 'move';

/** An escalation due at `at` (askedAt + `after`) unless the question was answered before. */
export interface PlannedEscalation {
  at: string;
  to: string[];
  mode: EscalationMode;
  /** The channels the new approvers are told by; the question's own when absent. */
  notify?: string[];
}

/** An escalation that happened: when, to whom, and who could answer before it. */
export interface Escalation {
  at: string;
  to: string[];
  mode: EscalationMode;
  from: string[];
  /** SHA-256 of the approver directory the deputies of `to` were read from (release 17; absent: not read). */
  directoryHash?: string;
}

/**
 * A question's prompt on one line (runs of white space, newlines included, become one space),
 * cut to `maxChars` with an ellipsis: a notice's subject, a deploy check's quote of the question.
 */
export function questionLine(prompt: string, maxChars: number): string {
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
