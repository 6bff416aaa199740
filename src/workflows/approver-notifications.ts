/**
 * Tells a question's approvers that it waits for them (docs/channels.md), from inside the task
 * workflow. When a question with notify channels starts waiting, one activity resolves its
 * responders to principals (groups expanded by the project's directory), then each approver gets
 * one notice per channel, sent through the outbox (outbox.ts): tried once (a failure shows in the
 * task at once), then retried with backoff for up to a day. Reminders are durable timers before the
 * deadline; when the question is answered or expires, or the task is canceled or fails while it
 * waits (release 6), those who were told hear of it. Notices to one approver by one channel go one at
 * a time, in order (a lane), so a reminder never overtakes its question.
 *
 * Everything lives in the task record (`approvals`, changed through its methods), so continue-as-new
 * carries it: the next run resumes unsent notices under the same idempotency keys and re-arms the
 * reminders. A task's questions without channels schedule nothing, so histories recorded before
 * replay as they were; the project-wide default applies only to tasks that started on release 4
 * (task-patches.ts).
 */
import { CancellationScope, condition, log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import { deliveryOptions, Outbox, type Lane, type Sending } from './outbox.js';
import {
  APPROVAL_CHANNELS,
  NOTICE_REFUSED,
  NOTIFY_APPROVER_ACTIVITY,
  RESOLVE_APPROVERS_ACTIVITY,
  isApprovalChannel,
  isNote,
  reminderOffset,
  type ApprovalChannel,
  type ApproverNotice,
  type NoticeKind,
  type NoticeReceipt,
  type NoticeState,
  type NotifiedQuestion,
  type PostedMessage,
  type ResolveApproversInput,
  type ResolvedApprovers,
} from '../protocol/approvals.js';
import type { Duration } from '@temporalio/common';
import type { Escalation, Question } from '../protocol/question.js';
import { AgentFailure } from './agent-api.js';
import { reasonOf } from './activity-failures.js';
import type { ReplyWait } from './reply-wait.js';
import type { TaskRecord } from './task-record.js';
import {
  notifiesByDefault,
  resolvesEscalationDeputies,
  sparesQuorumVoters,
  tellsApproversTaskEnded,
  updatesApprovalNotices,
} from './task-patches.js';
import { msToNumber } from '../protocol/temporal-sdk-compat.js';
import { uiText } from '../protocol/ui-text.js';
import { decisionText, hasVoted, quorumText } from '../protocol/quorum.js';

/** The project's defaults (`approvals` in a2a-temporal.config.ts), put into the workflow bundle by the agents plugin. */
/** What questions without their own `notify` and `remind` take (the config's `approvals`). */
export interface ApprovalDefaults {
  /** The channels approvers are told by. Default: none. */
  notify?: ApprovalChannel[];
  /** The reminders before the deadline, e.g. `['1 day before']`. */
  remind?: string[];
}

// Defined by the agents plugin's webpack hook (src/worker/agents-bundle.ts); absent in other bundles and in unit tests.
declare const A2A_TEMPORAL_APPROVAL_DEFAULTS: ApprovalDefaults | undefined;

function projectDefaults(): ApprovalDefaults {
  return typeof A2A_TEMPORAL_APPROVAL_DEFAULTS === 'undefined' ? {} : A2A_TEMPORAL_APPROVAL_DEFAULTS;
}

/** What the waiting question asked for (reply-wait.ts). */
export type NotifyRequest = Pick<ReplyWait, 'question' | 'notify' | 'remind' | 'reply'>;

/** Settled notices kept in the task (pending ones are always kept): a long chat's record stays bounded. */
const KEPT_NOTICES = 100;
// The channels bound their own attempts (SMTP and HTTP timeouts under 30 s); 45 s is the backstop.
const SEND_OPTIONS = deliveryOptions('45 seconds', NOTICE_REFUSED);
const { retry: RETRY_POLICY } = SEND_OPTIONS;
const RESOLVE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { ...RETRY_POLICY, maximumInterval: '1 minute', maximumAttempts: 10 },
  summary: 'resolve approvers',
};

type ResolveActivity = (input: ResolveApproversInput) => Promise<ResolvedApprovers>;
type NotifyActivity = (notice: ApproverNotice) => Promise<NoticeReceipt>;

export class ApproverNotifications {
  /** One lane per approver and channel; a notice under way is not skipped when its question closes. */
  private readonly outbox = new Outbox(SEND_OPTIONS);
  /** Notes under way that update the messages that asked (release 5): those are done with once they settle. */
  private readonly updating = new Set<string>();
  /** Questions (by seq) whose approvers are being resolved, and whose reminders are watched. */
  private readonly resolving = new Set<number>();
  private readonly reminding = new Set<number>();
  /** Escalations whose new approvers are being resolved. */
  private escalating = 0;

  constructor(private readonly record: TaskRecord) {}

  /** No activity under way or due: the workflow may end or continue as new (reminder timers are re-armed after it). */
  get idle(): boolean {
    return this.resolving.size === 0 && this.escalating === 0 && this.outbox.idle;
  }

  /** A continued run picks up where the last one stopped. */
  resume(): void {
    for (const question of this.questions()) {
      if (question.open && !question.approvers) this.resolveAndAsk(question);
      else this.armReminders(question);
    }
    this.drain();
  }

  /** The questions being notified. */
  private questions(): ReadonlyArray<Readonly<NotifiedQuestion>> {
    return this.record.notifiedQuestions;
  }

  /** The notified question a wait is for (by the question's id; those of runs before ids have none: ''). */
  private notified(request: NotifyRequest): Readonly<NotifiedQuestion> | undefined {
    return this.questions().find((question) => (question.id ?? '') === request.question.id);
  }

  /** A question starts waiting: its approvers are told by each of its channels. */
  questionAsked(request: NotifyRequest): void {
    // A question resumed after continue-as-new is already on its way to its approvers.
    if (this.notified(request)?.open) return;
    const { channels, remind } = this.chosen(request);
    this.track(request.question, channels, remind);
  }

  /**
   * The question escalated (question-escalation.ts, release 13): who it now waits for is told by
   * `notify`, else by the question's channels; those told before are not told again, and with
   * `move` only the new approvers get its reminders.
   */
  questionEscalated(request: NotifyRequest, escalation: Escalation, notify: ApprovalChannel[] | undefined): void {
    const question = this.notified(request);
    if (!question?.open) {
      // Nobody was told of it: only the escalation's own channels tell anyone, and only its new responders.
      if (notify?.length) this.track({ ...request.question, responders: escalation.to }, notify, []);
      return;
    }
    // Release 17: the escalation came with the deputies of those it adds.
    const { deputies: deputiesBefore } = question;
    const { responders, deputies } = request.question;
    this.record.notifiedQuestionChanged(question, { responders, deputies });
    const channels = notify ?? question.channels;
    this.escalating += 1;
    void CancellationScope.nonCancellable(async () => {
      try {
        const resolved = await this.resolve({ ...question, responders: escalation.to, channels });
        if (!resolved) return;
        const before = question.approvers ?? [];
        const added = resolved.approvers.filter((approver) => !before.includes(approver));
        const approvers = escalation.mode === 'move' ? resolved.approvers : [...before, ...added];
        this.record.notifiedQuestionChanged(question, { approvers });
        // The added approvers, then (release 17) their deputies: each once, and nobody told of the question before.
        const told = recipients({ ...question, approvers: before, deputies: deputiesBefore });
        const newly = resolvesEscalationDeputies()
          ? recipients(question).filter(({ approver }) => !told.some((one) => one.approver === approver))
          : added;
        this.tell(question, channels, resolved.unknown, newly);
      } finally {
        this.escalating -= 1;
      }
    });
  }

  /** Notifies `pending`'s approvers by `channels` (none: nobody), with reminders by `remind`. */
  private track(pending: Question, channels: ApprovalChannel[], remind: string[]): void {
    if (channels.length === 0) return;
    const question: NotifiedQuestion = {
      seq: this.record.lastSeq,
      id: pending.id,
      channels,
      open: true,
      prompt: pending.prompt,
      askedAt: pending.askedAt,
      ...(pending.deadline && { deadline: pending.deadline }),
      ...(pending.responders && { responders: pending.responders }),
      ...(pending.notByRequester && { notByRequester: true }),
      ...(pending.deputies && { deputies: pending.deputies }),
      ...(pending.quorum && { quorum: pending.quorum }),
      reminders: reminderTimes(remind, pending.deadline),
      remindersSent: 0,
    };
    // Those closed are done with: a withdrawn one's approvers hear of the task's end only if no question came after it.
    this.record.notifyQuestion(question);
    this.resolveAndAsk(question);
  }

  /** A vote on a quorum question that did not decide it: its reminders say where it stands now. */
  questionVoted(request: NotifyRequest): void {
    const question = this.notified(request);
    const { quorum } = request.question;
    if (question?.open && quorum) this.record.notifiedQuestionChanged(question, { quorum });
  }

  /** The question stopped waiting: answered, expired, or withdrawn (the task canceled, a remote call's deadline). */
  questionClosed(request: NotifyRequest): void {
    const question = this.notified(request);
    if (!question?.open) return;
    const reply = request.reply && !request.reply.timedOut ? request.reply : undefined;
    const expired = !reply && question.deadline !== undefined && Date.now() >= Date.parse(question.deadline);
    // Withdrawn: how the task ends is what its approvers hear (taskEnded).
    const withdrawn = !reply && !expired;
    this.close(question, withdrawn);
    if (withdrawn) return;
    // Those who were told (or are being told) of the question hear how it ended; who answered does
    // not, but from release 5 on their Slack messages are updated too (their buttons answer nothing now).
    // A quorum question's note names all who decided it, not only the last vote.
    const { quorum } = request.question;
    const decision = reply?.votes && quorum ? decisionText(quorum, reply.votes) : undefined;
    for (const ask of this.told(question)) {
      if (ask.approver === reply?.responder && !this.mayUpdate(ask)) continue;
      this.add(question, ask.approver, ask.channel, reply ? 'answered' : 'expired', {
        ...(reply && { answeredBy: reply.responder }),
        ...(decision && { decision }),
      });
    }
    this.drain();
  }

  /**
   * The task reached its terminal state. Canceled or failed while its question waited (or had been
   * withdrawn), those told of the question hear so (release 6), with the task's last status
   * message; and they keep seeing the task, so that the link in their note and an answer link they
   * follow show how it ended. Called before the transition is published (task-runtime.ts).
   */
  taskEnded(): void {
    const { state, statusText } = this.record;
    if (!tellsApproversTaskEnded() || (state !== 'canceled' && state !== 'failed')) return;
    for (const question of this.questions()) {
      if (question.open) this.close(question);
      else if (!question.withdrawn) continue;
      for (const ask of this.told(question)) {
        this.record.addParticipant(ask.approver);
        this.add(question, ask.approver, ask.channel, state, {
          ...(statusText && { outcome: statusText.slice(0, 500) }),
        });
      }
    }
  }

  /** Closes the question: no more reminders, and its notices not yet under way are moot. */
  private close(question: Readonly<NotifiedQuestion>, withdrawn = false): void {
    this.record.notifiedQuestionClosed(question, withdrawn);
    // The lanes skip them too, but the task says so at once.
    for (const notice of this.record.notices) {
      if (this.stale(notice) && !this.outbox.isSending(notice.id)) this.settle(notice, 'skipped');
    }
  }

  /** The question's notices that reached (or are reaching) their approver: who was told of it, and by which channel. */
  private told(question: Readonly<NotifiedQuestion>): Array<Readonly<NoticeState>> {
    return this.record.notices.filter(
      (notice) =>
        notice.question === question.seq &&
        notice.kind === 'ask' &&
        (notice.state === 'sent' || this.outbox.isSending(notice.id)),
    );
  }

  /** Release 5: a Slack question whose message exists (or may, its post under way) can be updated. */
  private mayUpdate(ask: Readonly<NoticeState>): boolean {
    if (!updatesApprovalNotices() || ask.channel !== 'slack') return false;
    return this.outbox.isSending(ask.id) || this.postedFor(ask).length > 0;
  }

  /** The messages posted for a notice's question to its approver (release 5; Slack's Web API only). */
  private postedFor(notice: Pick<NoticeState, 'question' | 'approver' | 'channel'>): PostedMessage[] {
    if (notice.channel !== 'slack') return [];
    return this.record.postedMessages(notice.question, notice.approver);
  }

  private chosen(request: NotifyRequest): { channels: ApprovalChannel[]; remind: string[] } {
    // Auth questions go to the requester, in band: only an explicit choice notifies anyone.
    const defaults = request.question.kind === 'input' && notifiesByDefault() ? projectDefaults() : {};
    const names = request.notify ?? defaults.notify ?? [];
    for (const name of names) {
      if (!isApprovalChannel(name)) {
        throw new AgentFailure(`ask: unknown notify channel "${name}" (known: ${APPROVAL_CHANNELS.join(', ')})`);
      }
    }
    return { channels: [...new Set(names as ApprovalChannel[])], remind: request.remind ?? defaults.remind ?? [] };
  }

  private resolveAndAsk(question: Readonly<NotifiedQuestion>): void {
    this.resolving.add(question.seq);
    // Not cancellable: a notice under way finishes even if the task is canceled meanwhile.
    void CancellationScope.nonCancellable(async () => {
      try {
        const resolved = await this.resolve(question);
        if (!resolved) return;
        this.record.notifiedQuestionChanged(question, { approvers: resolved.approvers });
        this.tell(question, question.channels, resolved.unknown, recipients(question));
      } finally {
        this.resolving.delete(question.seq);
      }
      this.drain();
      this.armReminders(question);
    });
  }

  /** Asks `who` by each of `channels`, and records each group the directory does not know as a failed notice. */
  private tell(
    question: Readonly<NotifiedQuestion>,
    channels: readonly ApprovalChannel[],
    unknown: readonly string[],
    who: ReadonlyArray<string | { approver: string; actingFor?: string }>,
  ): void {
    for (const group of unknown) {
      for (const channel of channels) {
        this.add(question, group, channel, 'ask', { failure: `${group} is not in the approver directory` });
      }
    }
    if (!question.open) return;
    for (const entry of who) {
      const { approver, actingFor } = typeof entry === 'string' ? { approver: entry, actingFor: undefined } : entry;
      for (const channel of channels) this.add(question, approver, channel, 'ask', { actingFor });
    }
  }

  private async resolve(question: Readonly<NotifiedQuestion>): Promise<ResolvedApprovers | undefined> {
    const { owner, firstResponder } = this.record;
    const input: ResolveApproversInput = {
      ...(question.responders && { responders: question.responders }),
      ...((owner ?? firstResponder) && { fallback: owner ?? firstResponder }),
      ...(question.notByRequester && (owner ?? firstResponder) && { exclude: owner ?? firstResponder }),
    };
    try {
      return await proxyActivities<Record<string, ResolveActivity>>(RESOLVE_OPTIONS)[RESOLVE_APPROVERS_ACTIVITY]!(
        input,
      );
    } catch (error) {
      // A directory that cannot be read: the task says so, once per channel, and the question waits on.
      for (const channel of question.channels) {
        this.add(question, '(directory)', channel, 'ask', { failure: reasonOf(error) });
      }
      return undefined;
    }
  }

  /** Records a notice (failed at once when `failure` is given) and starts its lane. */
  private add(
    question: Readonly<NotifiedQuestion>,
    approver: string,
    channel: ApprovalChannel,
    kind: NoticeKind,
    {
      answeredBy,
      decision,
      outcome,
      failure,
      actingFor,
    }: {
      answeredBy?: string;
      decision?: string;
      outcome?: string;
      failure?: string;
      actingFor?: string | undefined;
    } = {},
  ): void {
    const tag = kind === 'reminder' ? `reminder${question.remindersSent}` : kind;
    const notice: NoticeState = {
      id: `${this.record.id}:${question.seq}:${approver}:${channel}:${tag}`,
      question: question.seq,
      kind,
      approver,
      channel,
      state: failure ? 'failed' : 'pending',
      ...(failure && { at: new Date().toISOString(), reason: failure }),
      ...(answeredBy && { answeredBy }),
      ...(decision && { decision }),
      ...(outcome && { outcome }),
      ...(actingFor && { actingFor }),
      ...(isNote(kind) && { about: questionFacts(question) }),
    };
    if (this.record.addNotice(notice, KEPT_NOTICES) && !failure) this.drain();
  }

  /** Starts the lane of every approver and channel with a notice due. */
  private drain(): void {
    for (const notice of this.record.notices) {
      if (notice.state === 'pending') this.runLane(laneOf(notice));
    }
  }

  private runLane(lane: string): void {
    this.outbox.run(lane, this.lane(lane));
  }

  private lane(lane: string): Lane<Readonly<NoticeState>, NoticeReceipt> {
    return {
      next: () => this.record.notices.find((next) => next.state === 'pending' && laneOf(next) === lane),
      dropped: (notice) => {
        if (!this.stale(notice)) return false;
        this.settle(notice, 'skipped');
        return true;
      },
      sending: (notice) => this.sending(notice),
      failing: (notice, reason) => {
        this.record.noticeFailing(notice, reason);
        return true;
      },
      settled: (notice, outcome) => {
        if (outcome.ok) {
          const { to, message } = outcome.receipt;
          this.settle(notice, 'sent', undefined, to);
          if (message && updatesApprovalNotices()) {
            this.record.messagePosted({ question: notice.question, approver: notice.approver, ...message });
          }
        } else {
          log.warn('approver notice given up', { taskId: this.record.id, notice: notice.id, reason: outcome.reason });
          this.settle(notice, 'failed', outcome.reason);
        }
        // Updated (or given up): those messages are done with.
        if (this.updating.delete(notice.id)) this.record.postedMessagesDone(notice.question, notice.approver);
      },
    };
  }

  /** A question or reminder whose question no longer waits. */
  private stale(notice: Readonly<NoticeState>): boolean {
    if (notice.state !== 'pending' || (notice.kind !== 'ask' && notice.kind !== 'reminder')) return false;
    return !this.questions().some((question) => question.open && question.seq === notice.question);
  }

  private sending(notice: Readonly<NoticeState>): Sending<NoticeReceipt> | undefined {
    // Release 5: a note by Slack updates the messages that asked; with none (an incoming webhook, a
    // post that failed) it is a message of its own, except to who answered, who needs none.
    const closing = isNote(notice.kind);
    const update = updatesApprovalNotices() && closing ? this.postedFor(notice) : [];
    if (closing && update.length === 0 && notice.answeredBy === notice.approver) {
      this.settle(notice, 'skipped');
      return undefined;
    }
    if (update.length > 0) this.updating.add(notice.id);
    const input = { ...this.noticeInput(notice), ...(update.length > 0 && { update }) };
    // The Temporal UI's summary names the principal and the channel, never an address.
    const summary = `notify ${uiText(notice.approver)} by ${notice.channel} (${notice.kind})`;
    const send = (options: ActivityOptions) =>
      proxyActivities<Record<string, NotifyActivity>>({ ...options, summary })[NOTIFY_APPROVER_ACTIVITY]!(input);
    return { send, attempts: 'once then retried' };
  }

  private noticeInput(notice: Readonly<NoticeState>): ApproverNotice {
    // Questions and reminders are sent only while their question waits: it is among those notified.
    const notified = notice.about ? undefined : this.questions().find(({ seq }) => seq === notice.question)!;
    const question = notice.about ?? questionFacts(notified!);
    const request = this.record.requestText();
    return {
      id: notice.id,
      kind: notice.kind,
      channel: notice.channel,
      approver: notice.approver,
      taskId: this.record.id,
      agent: this.record.agent,
      question: question.prompt,
      ...(request && { request: request.slice(0, 500) }),
      askedAt: question.askedAt,
      ...(question.id && { questionId: question.id }),
      ...(question.deadline && { deadline: question.deadline }),
      ...(notice.answeredBy && { answeredBy: notice.answeredBy }),
      ...(notice.decision && { decision: notice.decision }),
      ...(notice.outcome && { outcome: notice.outcome }),
      ...(notice.actingFor && { actingFor: notice.actingFor }),
      ...(notified?.quorum && { approvals: quorumText(notified.quorum) }),
    };
  }

  private settle(
    notice: Readonly<NoticeState>,
    state: 'sent' | 'failed' | 'skipped',
    reason?: string,
    to?: string,
  ): void {
    this.record.noticeSettled(notice, state, reason, to);
  }

  /**
   * Who a reminder goes to: those told of the question, but (release 18) not one who voted on it, nor
   * the deputy of one who did, nor one whose deputy did: none of them may vote again.
   */
  private stillNeeded(question: NotifiedQuestion): ReturnType<typeof recipients> {
    const { votes } = this.record.openQuestions.find((open) => open.id === question.id) ?? {};
    if (!votes || !sparesQuorumVoters()) return recipients(question);
    return recipients(question).filter(
      ({ approver, actingFor }) => !hasVoted(votes, approver) && !(actingFor && hasVoted(votes, actingFor)),
    );
  }

  /** Waits for each reminder's time while the question waits; one watch per question. */
  private armReminders(question: Readonly<NotifiedQuestion>): void {
    if (!question.open || !question.approvers || question.reminders.length === 0) return;
    if (this.reminding.has(question.seq)) return;
    this.reminding.add(question.seq);
    void CancellationScope.nonCancellable(async () => {
      try {
        while (question.open && question.reminders.length > 0) {
          const wait = Math.max(Date.parse(question.reminders[0]!) - Date.now(), 1);
          const closed = await condition(() => !question.open, wait, { summary: 'approver reminder' });
          if (closed) return;
          this.record.reminderDue(question);
          for (const { approver, actingFor } of this.stillNeeded(question)) {
            for (const channel of question.channels) this.add(question, approver, channel, 'reminder', { actingFor });
          }
        }
      } finally {
        this.reminding.delete(question.seq);
      }
    });
  }
}

/** A notice's lane: its approver and channel. */
function laneOf({ approver, channel }: Readonly<NoticeState>): string {
  return `${approver}\n${channel}`;
}

/** Who hears of the question: its approvers, then the deputies of those among them (release 11), each once. */
function recipients(question: Readonly<NotifiedQuestion>): Array<{ approver: string; actingFor?: string }> {
  const approvers = question.approvers ?? [];
  const told: Array<{ approver: string; actingFor?: string }> = approvers.map((approver) => ({ approver }));
  for (const deputy of question.deputies ?? []) {
    if (approvers.includes(deputy.for) && !told.some(({ approver }) => approver === deputy.to)) {
      told.push({ approver: deputy.to, actingFor: deputy.for });
    }
  }
  return told;
}

function questionFacts({
  prompt,
  askedAt,
  deadline,
  id,
}: Readonly<NotifiedQuestion>): NonNullable<NoticeState['about']> {
  return { prompt, askedAt, ...(deadline && { deadline }), ...(id && { id }) };
}

/** The reminder times of `remind` ('1 day before', ...) before `deadline`, earliest first; those already past are dropped. */
function reminderTimes(remind: readonly string[], deadline: string | undefined): string[] {
  if (remind.length === 0) return [];
  if (!deadline) throw new AgentFailure('ask: remind needs a deadline (reminders are counted back from it)');
  const times = remind.map((text) => {
    const offset = reminderOffset(text);
    let ms: number | undefined;
    try {
      ms = offset === undefined ? undefined : msToNumber(offset as Duration);
    } catch {
      ms = undefined;
    }
    if (ms === undefined || !Number.isFinite(ms) || ms <= 0) {
      throw new AgentFailure(`ask: remind "${text}" must read like '1 day before' or '30 minutes before'`);
    }
    return Date.parse(deadline) - ms;
  });
  return [...new Set(times)]
    .filter((at) => at > Date.now())
    .sort((a, b) => a - b)
    .map((at) => new Date(at).toISOString());
}
