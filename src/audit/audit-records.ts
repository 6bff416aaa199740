/**
 * What an audit export says of one task, read from its workflow history as Temporal recorded it
 * (docs/approval-policies.md): the request, each question (the summary memo the workflow writes
 * when it asks), each notice to an approver (the notice activity and its outcome), each answer
 * (an accepted Update, with who and by which channel), each vote on a quorum question (the summary
 * memo that follows it) and each decision with its signed receipt (the receipt activity). Fed a page
 * of events at a time; it keeps only what spans pages (activities under way, the questions seen,
 * the answers to a quorum question until the memo says whether they decided it).
 */
import type { LoadedDataConverter, Payload } from '@temporalio/common';
import { NOTIFY_APPROVER_ACTIVITY, type ApproverNotice } from '../protocol/approvals.js';
import {
  ANSWERS_QUESTION_METADATA,
  completeAuthUpdate,
  sendMessageUpdate,
  SUMMARY_MEMO,
  type AuthCompletion,
  type IncomingMessage,
  type TaskWorkflowInput,
} from '../protocol/contract.js';
import type { ListedQuestion } from '../protocol/question.js';
import type { Vote } from '../protocol/quorum.js';
import { SIGN_RECEIPT_ACTIVITY, type DecisionFacts } from '../protocol/receipts.js';
import { dataOf, textOf, type WireTask } from '../protocol/wire.js';
import { partsOf } from '../protocol/message-checks.js';
import { decodeMemo, type HistoryEvent } from '../tasks/index.js';
import { canonicalSha256 } from '../receipts/receipts.js';

/** One line of an export, before its chain link (`prev`). */
export interface AuditRecord {
  task: string;
  agent: string;
  kind: 'request' | 'question' | 'notice' | 'answer' | 'vote' | 'decision';
  /** When it happened, ISO 8601. */
  at: string;
  [field: string]: unknown;
}

/** Text in a record is cut here: the export says what happened, the task keeps the whole text. */
const TEXT_CHARS = 500;

export class TaskAuditReader {
  private requested = false;
  private readonly questions = new Set<string>();
  /**
   * Answers taken while a quorum question waited: a vote, or the answer that decided it, which the
   * next summary memo tells apart (its `votes`, and whether the question still waits).
   */
  private held: AuditRecord[] = [];
  /** Whether a question that waits (as the last summary memo shows) is decided by votes. */
  private quorumWaits = false;
  /** The votes recorded so far, by who and when, kept across runs. */
  private readonly votesSeen = new Set<string>();
  /**
   * Each question's askedAt by its id (the memo's `pendingQuestions` name them), and that of the
   * one question the last memo showed waiting (`pendingQuestion`, no id): for the records of votes.
   */
  private readonly askedAtOf = new Map<string, string>();
  private onlyAskedAt: string | undefined;
  /** Notice and receipt activities scheduled and not yet ended, by their scheduled event's ID. */
  private readonly notices = new Map<string, ApproverNotice>();
  private readonly decisions = new Map<string, DecisionFacts>();

  constructor(
    private readonly task: string,
    private readonly agent: string,
    private readonly converter: LoadedDataConverter,
  ) {}

  /** The records a page of the task's history holds, in history order. */
  async read(events: HistoryEvent[]): Promise<AuditRecord[]> {
    const records: AuditRecord[] = [];
    for (const event of events) {
      const memo = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[SUMMARY_MEMO];
      if (memo) {
        records.push(...this.memo(await this.decode<WireTask>(memo)));
        continue;
      }
      const record = await this.recordOf(event);
      if (record) records.push(record);
    }
    return records;
  }

  private async recordOf(event: HistoryEvent): Promise<AuditRecord | undefined> {
    const at = eventTime(event);
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) return this.scheduledRequest(await this.decode<TaskWorkflowInput>(started.input?.payloads?.[0]), at);
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (accepted?.name === sendMessageUpdate.name) {
      return this.message(await this.decode<IncomingMessage>(accepted.args?.payloads?.[0]), at);
    }
    if (accepted?.name === completeAuthUpdate.name) {
      const completion = await this.decode<AuthCompletion>(accepted.args?.payloads?.[0]);
      const by = completion?.caller?.id ?? completion?.by ?? 'auth-callback';
      return this.record('answer', at, { by, channel: 'temporal', completesAuth: true });
    }
    return this.activity(event, at);
  }

  /** A Schedule's run: the first message is the workflow's input. */
  private scheduledRequest(input: TaskWorkflowInput | undefined, at: string): AuditRecord | undefined {
    return input && 'firstMessage' in input ? this.message(input.firstMessage, at) : undefined;
  }

  /** The task's first message is its request; every later one taken answers its question. */
  private message(incoming: IncomingMessage | undefined, at: string): AuditRecord | undefined {
    if (!incoming) return undefined;
    const parts = partsOf(incoming);
    const data = dataOf(parts);
    const answers = incoming.metadata?.[ANSWERS_QUESTION_METADATA];
    const fields = {
      by: incoming.caller?.id ?? incoming.responder ?? null,
      channel: incoming.channel ?? 'temporal',
      text: textOf(parts).slice(0, TEXT_CHARS),
      ...(data !== undefined && { dataSha256: canonicalSha256(data) }),
      ...(typeof answers === 'string' && { askedAt: answers }),
    };
    if (this.requested) {
      const answer = this.record('answer', at, fields);
      if (!this.quorumWaits) return answer;
      this.held.push(answer);
      return undefined;
    }
    this.requested = true;
    return this.record('request', at, fields);
  }

  /** What a summary memo shows: a question asked, and the votes cast since the last (with the answers held for them). */
  private memo(summary: WireTask | undefined): AuditRecord[] {
    const metadata = (summary?.metadata ?? {}) as {
      pendingQuestion?: ListedQuestion;
      pendingQuestions?: ListedQuestion[];
      votes?: Array<Vote & { question: string }>;
    };
    const asked = this.question(metadata.pendingQuestion);
    const open = metadata.pendingQuestions ?? (metadata.pendingQuestion ? [metadata.pendingQuestion] : []);
    for (const question of open) if (question.id) this.askedAtOf.set(question.id, question.askedAt);
    // Every vote of the task; a memo written before it listed them has those of the questions waiting.
    const votes =
      metadata.votes ?? open.flatMap(({ votes: cast = [] }) => cast.map((vote) => ({ ...vote, question: '' })));
    const records = [...(asked ? [asked] : []), ...this.votes(votes, open)];
    this.quorumWaits = open.some((question) => question.quorum);
    this.onlyAskedAt = open.length === 1 ? open[0]!.askedAt : undefined;
    return records;
  }

  /**
   * The votes of `votes` not seen before, each as its own record, but the one that decided its
   * question (its last, in no question still waiting): that is the answer held for it, as any
   * answer. Answers held that no vote took (one to another question) are answers.
   */
  private votes(votes: Array<Vote & { question: string }>, open: ListedQuestion[]): AuditRecord[] {
    const records: AuditRecord[] = [];
    for (const vote of votes) {
      const key = JSON.stringify([vote.by, vote.at]);
      if (this.votesSeen.has(key)) continue;
      this.votesSeen.add(key);
      const index = this.held.findIndex((answer) => answer['by'] === vote.by);
      const [answer] = index < 0 ? [] : this.held.splice(index, 1);
      const waiting = open.find((question) => question.votes?.some(({ by, at }) => by === vote.by && at === vote.at));
      const last = votes.filter((each) => each.question === vote.question).at(-1) === vote;
      if (!waiting && last) {
        if (answer) records.push(answer);
        continue;
      }
      // A vote cast with the one that decided (both in one workflow task) belongs to a question the last memo showed.
      const askedAt = waiting?.askedAt ?? this.askedAtOf.get(vote.question) ?? this.onlyAskedAt;
      records.push(
        this.record('vote', vote.at, {
          by: vote.by,
          actingFor: vote.actingFor ?? null,
          decision: vote.decision,
          channel: vote.channel,
          ...(askedAt && { askedAt }),
          ...(vote.comment && { comment: vote.comment.slice(0, TEXT_CHARS) }),
          ...(vote.group && { group: vote.group }),
        }),
      );
    }
    records.push(...this.held);
    this.held = [];
    return records;
  }

  /** A question, the first time the summary memo shows it (each run continued as new shows it again). */
  private question(pending: ListedQuestion | undefined): AuditRecord | undefined {
    if (!pending || this.questions.has(pending.askedAt)) return undefined;
    this.questions.add(pending.askedAt);
    return this.record('question', pending.askedAt, {
      by: this.agent,
      askedAt: pending.askedAt,
      question: pending.prompt.slice(0, TEXT_CHARS),
      questionKind: pending.kind,
      ...(pending.responders && { responders: pending.responders }),
      ...(pending.deadline && { deadline: pending.deadline }),
    });
  }

  /** Notices and receipts: recorded when their activity ends, with its outcome. */
  private async activity(event: HistoryEvent, at: string): Promise<AuditRecord | undefined> {
    const scheduled = event.activityTaskScheduledEventAttributes;
    const id = String(event.eventId);
    if (scheduled?.activityType?.name === NOTIFY_APPROVER_ACTIVITY) {
      const notice = await this.decode<ApproverNotice>(scheduled.input?.payloads?.[0]);
      if (notice) this.notices.set(id, notice);
      return undefined;
    }
    if (scheduled?.activityType?.name === SIGN_RECEIPT_ACTIVITY) {
      const facts = await this.decode<DecisionFacts>(scheduled.input?.payloads?.[0]);
      if (facts) this.decisions.set(id, facts);
      return undefined;
    }
    const ended = activityEnd(event);
    if (!ended) return undefined;
    const notice = this.notices.get(ended.scheduled);
    if (notice) {
      this.notices.delete(ended.scheduled);
      return this.record('notice', at, {
        to: notice.approver,
        channel: notice.channel,
        notice: notice.kind,
        askedAt: notice.askedAt,
        outcome: ended.result ? 'sent' : 'failed',
      });
    }
    const facts = this.decisions.get(ended.scheduled);
    if (!facts || !ended.result) return undefined;
    this.decisions.delete(ended.scheduled);
    const signed = await this.decode<{ jws: string } | null>(ended.result);
    return this.record('decision', facts.at, {
      by: facts.approver,
      actingFor: facts.actingFor ?? null,
      channel: facts.channel,
      askedAt: facts.question.askedAt,
      decision: facts.decision.slice(0, TEXT_CHARS),
      receipt: signed?.jws ?? null,
    });
  }

  private record(kind: AuditRecord['kind'], at: string, fields: Record<string, unknown>): AuditRecord {
    return { task: this.task, agent: this.agent, kind, at, ...fields };
  }

  private async decode<T>(payload: Payload | null | undefined): Promise<T | undefined> {
    if (!payload) return undefined;
    const { value } = await decodeMemo(this.converter, { value: payload });
    return value as T;
  }
}

/** An activity's end: the scheduled event it ends, and its result payload when it completed. */
function activityEnd(event: HistoryEvent): { scheduled: string; result?: Payload } | undefined {
  const completed = event.activityTaskCompletedEventAttributes;
  if (completed) {
    const result = completed.result?.payloads?.[0];
    return { scheduled: String(completed.scheduledEventId), ...(result && { result }) };
  }
  const failed =
    event.activityTaskFailedEventAttributes ??
    event.activityTaskTimedOutEventAttributes ??
    event.activityTaskCanceledEventAttributes;
  return failed ? { scheduled: String(failed.scheduledEventId) } : undefined;
}

/** An event's time, ISO 8601 (a protobuf Timestamp: its seconds are a Long). */
function eventTime(event: HistoryEvent): string {
  const seconds = Number(event.eventTime?.seconds?.toString() ?? 0);
  return new Date(seconds * 1_000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}
