/**
 * The state of one A2A task: status, history, artifacts, audit timeline and the numbered event
 * log the gateway streams from. Pure and deterministic (clock and ID generator are injected), so
 * it runs inside the workflow sandbox and in plain unit tests alike.
 */
import type { Delegation, TaskAudience, TaskSnapshot, TimelineEntry } from '../protocol/contract.js';
import type { Escalation, ListedQuestion, PendingQuestion, Question, QuestionView } from '../protocol/question.js';
import type { EventsSince, TaskEvent } from '../protocol/task-events.js';
import type {
  PushConfig,
  PushDeliveryState,
  PushDeliveryView,
  PushEventSelection,
  StoredPushConfig,
} from '../protocol/push.js';
import type { ModelCallUsage } from '../protocol/llm.js';
import type { NoticeState, NotifiedQuestion, PostedMessage } from '../protocol/approvals.js';
import type { Vote } from '../protocol/quorum.js';
import { canTransition, fromWireState, isTerminal, toWireState, type TaskStateName } from '../protocol/states.js';
import { textOf, type WireArtifact, type WireMessage, type WirePart, type WireTask } from '../protocol/wire.js';

/** Under Temporal's 2 MB payload limit, with room for the rest of the payload. */
const MAX_RESULT_BYTES = 1_500_000;
/** Events a new run keeps: subscribers further behind than this get a fresh snapshot instead. */
const CARRIED_EVENTS = 200;
const TIMELINE_NOTE_CHARS = 200;
/** Model calls whose usage `metadata.usage.calls` lists (the latest); its sums count them all. */
const RECORDED_MODEL_CALLS = 100;

function byteLength(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: TaskStateName,
    readonly to: TaskStateName,
  ) {
    super(`Illegal A2A task transition ${from} -> ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

export interface TransitionOptions {
  /** Agent-authored status message (becomes status.message and joins the history). */
  message?: WireMessage;
  /** Who caused it: "agent", a responder, "operator", "deadline". */
  by?: string;
  /** The approver `by` answered for, as their deputy. */
  actingFor?: string;
}

const SUMMARY_TEXT_CHARS = 1_000;
/** The first words of the request in the summary memo: what a list row shows. */
const SUMMARY_REQUEST_CHARS = 200;
/** A question's details larger than this stay out of the summary memo (read the task for them). */
const SUMMARY_DETAILS_BYTES = 4 * 1024;

export class TaskRecord {
  /** Which events webhooks receive (the agent's choice; every status change and artifact by default). */
  private pushSelection: PushEventSelection = {};

  private constructor(
    private readonly data: TaskSnapshot,
    private readonly now: () => string,
  ) {}

  static create(
    start: { taskId: string; contextId: string; agent: string; receipts: boolean },
    now: () => string,
  ): TaskRecord {
    const at = now();
    return new TaskRecord(
      {
        id: start.taskId,
        contextId: start.contextId,
        agent: start.agent,
        receipts: start.receipts,
        status: { state: toWireState('submitted'), timestamp: at },
        history: [],
        artifacts: [],
        timeline: [{ state: 'submitted', at }],
        events: [],
        appliedMessageKeys: [],
      },
      now,
    );
  }

  static restore(snapshot: TaskSnapshot, now: () => string): TaskRecord {
    const data = clone(snapshot);
    // A run before several questions carried its one question as `pending`: its id is unknown ('').
    if (data.pending) data.questions ??= [{ ...data.pending, id: '' }];
    delete data.pending;
    // A run before several notified questions carried its one as `question`.
    if (data.approvals?.question) {
      data.approvals.questions = [data.approvals.question];
      delete data.approvals.question;
    }
    return new TaskRecord(data, now);
  }

  get id(): string {
    return this.data.id;
  }
  get contextId(): string {
    return this.data.contextId;
  }
  get agent(): string {
    return this.data.agent;
  }
  get state(): TaskStateName {
    return fromWireState(this.data.status.state) ?? 'submitted';
  }
  get isTerminal(): boolean {
    return isTerminal(this.state);
  }
  /** The earliest open question, as `metadata.pendingQuestion` shows it (without its id). */
  get pending(): PendingQuestion | undefined {
    const first = this.data.questions?.[0];
    if (!first) return undefined;
    const { id: _id, ...pending } = first;
    return pending;
  }
  /** Every open question, in the order asked. */
  get openQuestions(): readonly Question[] {
    return this.data.questions ?? [];
  }
  get lastSeq(): number {
    return this.data.events.at(-1)?.seq ?? 0;
  }
  get history(): readonly WireMessage[] {
    return this.data.history;
  }
  get timeline(): readonly TimelineEntry[] {
    return this.data.timeline;
  }
  get statusTimestamp(): string {
    return this.data.status.timestamp;
  }
  get statusText(): string {
    return textOf(this.data.status.message?.parts ?? []);
  }

  transition(to: TaskStateName, options: TransitionOptions = {}): void {
    const from = this.state;
    if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
    const at = this.now();
    const status = { state: toWireState(to), timestamp: at, ...(options.message && { message: options.message }) };
    this.data.status = status;
    if (options.message) this.data.history.push(options.message);
    if (to !== 'input-required' && to !== 'auth-required') delete this.data.questions;
    const entry: TimelineEntry = { state: to, at };
    const note = options.message ? textOf(options.message.parts) : undefined;
    if (note) entry.message = note.length > TIMELINE_NOTE_CHARS ? `${note.slice(0, TIMELINE_NOTE_CHARS - 1)}…` : note;
    if (options.by) entry.by = options.by;
    if (options.actingFor) entry.actingFor = options.actingFor;
    this.data.timeline.push(entry);
    this.push({ kind: 'status', status, final: isTerminal(to) });
  }

  /**
   * The task becomes input-required or auth-required, showing the question (reply-wait.ts) beside
   * those still open; `message` shows them all (questionsMessage in task-runtime.ts).
   */
  showQuestion(question: Question, message: WireMessage): void {
    const questions = [...this.openQuestions, { ...question }];
    this.transition(interruptedState(questions), { message, by: 'agent' });
    this.data.questions = questions;
  }

  /**
   * An open question stops showing (answered, expired, withdrawn); the questions still open, which
   * the caller shows (or, with none, moves the task on).
   */
  removeQuestion(id: string): readonly Question[] {
    const questions = this.openQuestions.filter((question) => question.id !== id);
    if (questions.length > 0) this.data.questions = questions;
    return questions;
  }

  /**
   * An open question escalated (question-escalation.ts): the task's copy takes its new responders,
   * deputies and plan (a question resumed after continue-as-new is that copy), and the task keeps the escalation.
   */
  escalated(question: Question, escalation: Escalation): void {
    const kept = this.data.questions?.find((open) => open.id === question.id);
    if (kept && kept !== question) {
      if (question.responders) kept.responders = clone(question.responders);
      if (question.deputies) kept.deputies = clone(question.deputies);
      else delete kept.deputies;
      if (question.escalate) kept.escalate = clone(question.escalate);
      else delete kept.escalate;
      kept.escalated = clone(question.escalated);
    }
    (this.data.escalations ??= []).push({ question: question.id, ...clone(escalation) });
  }

  /**
   * A vote on an open quorum question (question-quorum.ts): the task's copy takes its tally and votes
   * (as escalated does), and the task keeps the vote after the question closes.
   */
  voted(question: Question, vote: Vote): void {
    const kept = this.data.questions?.find((open) => open.id === question.id);
    if (kept && kept !== question) {
      kept.quorum = clone(question.quorum);
      kept.votes = clone(question.votes);
    }
    (this.data.votes ??= []).push({ question: question.id, ...clone(vote) });
  }

  hasApplied(messageKey: string): boolean {
    return this.data.appliedMessageKeys.includes(messageKey);
  }

  addUserMessage(message: WireMessage, messageKey?: string): void {
    this.data.history.push(message);
    if (messageKey) this.data.appliedMessageKeys.push(messageKey);
  }

  /**
   * `joinText`: appended text continues the artifact's last text part (a model's streamed answer is
   * one text part, not one per chunk); otherwise each chunk's parts are kept as sent, as a client
   * appending the events would have them (mirrored remote artifacts count them).
   */
  addArtifact(artifact: WireArtifact, append: boolean, lastChunk: boolean, joinText = false): void {
    const existing = this.data.artifacts.find((a) => a.artifactId === artifact.artifactId);
    if (existing && append && joinText) appendText(existing.parts, clone(artifact.parts));
    else if (existing && append) existing.parts.push(...clone(artifact.parts));
    else if (existing) Object.assign(existing, clone(artifact));
    else this.data.artifacts.push(clone(artifact));
    this.push({ kind: 'artifact', artifact, append, lastChunk });
  }

  /** How many parts the artifact has so far (0 if there is none yet). */
  artifactPartCount(artifactId: string): number {
    return this.data.artifacts.find((a) => a.artifactId === artifactId)?.parts.length ?? 0;
  }

  /** A delegation's remote task as last seen (`call` is its index in metadata.delegations; a new one appends). */
  trackDelegation(delegation: Delegation, call?: number): number {
    const delegations = (this.data.delegations ??= []);
    if (call === undefined || call >= delegations.length) return delegations.push({ ...delegation }) - 1;
    delegations[call] = { ...delegation };
    return call;
  }

  /**
   * The questions whose approvers are being notified (approver-notifications.ts): those open, and
   * those closed since the last was asked. Changed only through the methods below.
   */
  get notifiedQuestions(): ReadonlyArray<Readonly<NotifiedQuestion>> {
    return this.data.approvals?.questions ?? [];
  }

  /** Every approver notice kept, pending and settled (`metadata.approverNotifications`). */
  get notices(): ReadonlyArray<Readonly<NoticeState>> {
    return this.data.approvals?.notices ?? [];
  }

  /** The messages posted to ask `approver` the question (release 5; Slack's Web API only): what a note updates. */
  postedMessages(question: number, approver: string): PostedMessage[] {
    return (this.data.approvals?.posted ?? [])
      .filter((posted) => posted.question === question && posted.approver === approver)
      .map(({ channel, ts }) => ({ channel, ts }));
  }

  /** A question's approvers are to be told of it; the questions closed before it are done with. */
  notifyQuestion(question: NotifiedQuestion): void {
    const approvals = (this.data.approvals ??= { notices: [] });
    approvals.questions = [...(approvals.questions ?? []).filter((kept) => kept.open), question];
  }

  /**
   * A notified question changed: its approvers resolved, its responders and deputies escalated, its
   * tally voted. `question` is one `notifiedQuestions` gave (a continuation may hold one closed and
   * dropped since, whose changes then reach nobody).
   */
  notifiedQuestionChanged(
    question: Readonly<NotifiedQuestion>,
    change: Partial<Pick<NotifiedQuestion, 'approvers' | 'responders' | 'deputies' | 'quorum'>>,
  ): void {
    const kept = question as NotifiedQuestion;
    if ('approvers' in change) kept.approvers = change.approvers;
    if ('responders' in change) kept.responders = change.responders;
    if ('deputies' in change) {
      if (change.deputies) kept.deputies = change.deputies;
      else delete kept.deputies;
    }
    if ('quorum' in change) kept.quorum = change.quorum;
  }

  /** The question stopped waiting: no more reminders; `withdrawn` when the agent stopped waiting for it. */
  notifiedQuestionClosed(question: Readonly<NotifiedQuestion>, withdrawn = false): void {
    const kept = question as NotifiedQuestion;
    kept.open = false;
    kept.reminders = [];
    if (withdrawn) kept.withdrawn = true;
  }

  /** The question's next reminder is due: it is sent, and counted. */
  reminderDue(question: Readonly<NotifiedQuestion>): void {
    const kept = question as NotifiedQuestion;
    kept.reminders.shift();
    kept.remindersSent += 1;
  }

  /**
   * A notice to record (pending, or failed at once); false when the task has it already. Settled
   * notices beyond `keep` go, oldest first, with the posted messages of questions no notice names.
   */
  addNotice(notice: NoticeState, keep: number): boolean {
    const approvals = (this.data.approvals ??= { notices: [] });
    if (approvals.notices.some((existing) => existing.id === notice.id)) return false;
    approvals.notices.push(notice);
    const settled = approvals.notices.filter((kept) => kept.state !== 'pending');
    if (settled.length > keep) {
      const dropped = new Set(settled.slice(0, settled.length - keep));
      approvals.notices = approvals.notices.filter((kept) => !dropped.has(kept));
      if (approvals.posted) {
        approvals.posted = approvals.posted.filter((posted) =>
          approvals.notices.some((kept) => kept.question === posted.question),
        );
      }
    }
    return true;
  }

  /** A pending notice's first attempt failed; its retries go on. */
  noticeFailing(notice: Readonly<NoticeState>, reason: string): void {
    const kept = notice as NoticeState;
    kept.at = this.now();
    kept.reason = reason;
  }

  /** A notice was sent (`to`: the address, masked), failed (`reason`) or skipped. */
  noticeSettled(
    notice: Readonly<NoticeState>,
    state: Exclude<NoticeState['state'], 'pending'>,
    reason?: string,
    to?: string,
  ): void {
    const kept = notice as NoticeState;
    kept.state = state;
    kept.at = this.now();
    if (reason) kept.reason = reason;
    else delete kept.reason;
    if (to) kept.to = to;
  }

  /** A question's message to an approver that its note may update later (release 5). */
  messagePosted(posted: PostedMessage & { question: number; approver: string }): void {
    const approvals = (this.data.approvals ??= { notices: [] });
    (approvals.posted ??= []).push(posted);
  }

  /** The messages that asked `approver` the question were updated (or that was given up): done with. */
  postedMessagesDone(question: number, approver: string): void {
    const approvals = this.data.approvals;
    if (!approvals) return;
    approvals.posted = approvals.posted?.filter(
      (posted) => posted.question !== question || posted.approver !== approver,
    );
  }

  /** A model call's tokens (LLM agents): summed in `metadata.usage`, the latest calls kept one by one. */
  addModelUsage(call: ModelCallUsage): void {
    const usage = (this.data.usage ??= { inputTokens: 0, outputTokens: 0, totalTokens: 0, modelCalls: 0, calls: [] });
    usage.inputTokens += call.inputTokens;
    usage.outputTokens += call.outputTokens;
    usage.totalTokens += call.totalTokens;
    usage.modelCalls += 1;
    usage.calls.push({ ...call });
    // The sums cover every call; the list stays short however long the session runs.
    if (usage.calls.length > RECORDED_MODEL_CALLS) usage.calls.splice(0, usage.calls.length - RECORDED_MODEL_CALLS);
  }

  /** The agent answered with a message and no task (A2A "message response"). */
  respondWithMessage(message: WireMessage): void {
    this.data.directMessage = true;
    this.data.history.push(message);
    this.push({ kind: 'message', message });
  }

  get directMessage(): WireMessage | undefined {
    return this.data.directMessage ? this.data.history.at(-1) : undefined;
  }

  eventsSince(seq: number): EventsSince {
    return { events: this.data.events.filter((e) => e.seq > seq), lastSeq: this.lastSeq, state: this.state };
  }

  /** The A2A Task. `historyLength` keeps the most recent messages (0 omits history). */
  view(historyLength?: number): WireTask {
    const { id, contextId, status, artifacts, history } = this.data;
    const task: WireTask = clone({ id, contextId, status });
    if (artifacts.length > 0) task.artifacts = clone(artifacts);
    const kept = historyLength === undefined ? history : historyLength > 0 ? history.slice(-historyLength) : [];
    if (kept.length > 0) task.history = clone(kept);
    task.metadata = {
      agent: this.data.agent,
      ...(this.data.owner && { owner: this.data.owner }),
      ...(this.data.participants && { participants: clone(this.data.participants) }),
      timeline: clone(this.data.timeline),
      ...(this.pending && { pendingQuestion: clone(this.pending) }),
      ...(this.openQuestions.length > 1 && { pendingQuestions: clone(this.openQuestions) }),
      ...(this.data.pushConfigs?.length && { pushNotifications: this.pushDeliveryViews() }),
      ...(this.data.usage && { usage: clone(this.data.usage) }),
      ...(this.data.delegations && { delegations: clone(this.data.delegations) }),
      ...(this.data.approvals?.notices.length && { approverNotifications: clone(this.data.approvals.notices) }),
      ...(this.data.escalations && { escalations: clone(this.data.escalations) }),
      ...(this.data.votes && { votes: clone(this.data.votes) }),
    };
    return task;
  }

  /**
   * The task for the summary memo, rewritten at every change: no history, artifacts or timeline,
   * status text capped and other parts left out, so each change stays small.
   */
  summary(): WireTask {
    const { id, contextId, agent, owner, participants } = this.data;
    const { pending } = this;
    const { state, timestamp, message } = this.data.status;
    const capped = (text: string) => text.slice(0, SUMMARY_TEXT_CHARS);
    const status: WireTask['status'] = { state, timestamp };
    if (message) {
      const { metadata: _metadata, ...rest } = message;
      const parts = rest.parts
        .filter((part) => typeof part.text === 'string')
        .map((part) => ({ text: capped(part.text!) }));
      status.message = { ...rest, parts };
    }
    // A question's details (an LLM tool call: tool, arguments, reason) ride along while small: the
    // inbox lists questions from these memos alone.
    const listed = (question: QuestionView): ListedQuestion => {
      // Each key stays where it was: the memo reads as before, byte for byte.
      const { schema: _schema, ...rest } = question;
      const { details } = rest;
      const small = details && byteLength(details) <= SUMMARY_DETAILS_BYTES ? details : undefined;
      return { ...rest, prompt: capped(rest.prompt), details: small };
    };
    const pendingQuestion = pending && listed(pending);
    const several = this.openQuestions.length > 1 ? this.openQuestions.map(listed) : undefined;
    const request = this.requestText();
    return {
      id,
      contextId,
      status,
      metadata: {
        agent,
        ...(owner && { owner }),
        ...(participants && { participants: clone(participants) }),
        ...(request && { request: request.slice(0, SUMMARY_REQUEST_CHARS) }),
        ...(pendingQuestion && { pendingQuestion: clone(pendingQuestion) }),
        ...(several && { pendingQuestions: clone(several) }),
        // Every vote, the deciding ones too: the audit export tells a vote from the answer that decided (audit-records.ts).
        ...(this.data.votes && { votes: clone(this.data.votes) }),
      },
    };
  }

  /** The text of the request that started the task (its first user message still in history). */
  requestText(): string | undefined {
    const first = this.data.history.find((message) => message.role === 'ROLE_USER');
    return first ? textOf(first.parts) || undefined : undefined;
  }

  /**
   * Who may answer the questions that wait now (each its responders, or the owner when it names
   * nobody), each once; undefined when no question waits or nobody is named (a task without an
   * owner: anyone may answer).
   */
  respondersNow(): string[] | undefined {
    const { owner } = this.data;
    const responders = new Set(this.openQuestions.flatMap((question) => question.responders ?? (owner ? [owner] : [])));
    return responders.size > 0 ? [...responders] : undefined;
  }

  /** Whose lists show the question that waits (A2AResponders): who may answer it, and its deputies. */
  listedResponders(): string[] | undefined {
    const responders = this.respondersNow();
    const deputies = this.openQuestions.flatMap((question) => question.deputies ?? []).map((deputy) => deputy.to);
    return responders && [...new Set([...responders, ...deputies])];
  }

  /**
   * The task with only its latest message and no artifacts: small enough for every update result
   * (a full copy in each would grow history quadratically), and complete for a task just created.
   */
  header(): WireTask {
    const { artifacts: _artifacts, ...header } = this.view(1);
    return header;
  }

  /** What `header()` leaves out: the artifacts, and the messages before the latest. */
  headerLeftOut(): { artifacts: number; messages: number } {
    return { artifacts: this.data.artifacts.length, messages: Math.max(0, this.data.history.length - 1) };
  }

  /**
   * The task as a workflow result or memo, which Temporal caps at 2 MB: the oldest history goes
   * first, then the artifacts (flagged in metadata), when the whole task would not fit.
   */
  boundedView(maxBytes = MAX_RESULT_BYTES): WireTask {
    const task = this.view();
    const history = task.history ?? [];
    // Each message is encoded once: a message leaving a JSON array takes its bytes and, but for
    // the last one, a comma with it. Re-encoding the task per dropped message was quadratic.
    let bytes = byteLength(task);
    let dropped = 0;
    while (dropped < history.length && bytes > maxBytes) {
      bytes -= byteLength(history[dropped]) + (dropped < history.length - 1 ? 1 : 0);
      dropped++;
    }
    history.splice(0, dropped);
    if (bytes > maxBytes) {
      delete task.artifacts;
      task.metadata = { ...task.metadata, artifactsOmitted: true };
    }
    return task;
  }

  /** The whole task, or nothing when it is over `maxBytes` encoded. */
  viewWithin(maxBytes: number): WireTask | undefined {
    const task = this.view();
    return byteLength(task) <= maxBytes ? task : undefined;
  }

  /** The newest events that fit in `maxBytes` (at most `max`), oldest first. */
  lastEvents(max = 100, maxBytes = 256 * 1024): TaskEvent[] {
    const kept: TaskEvent[] = [];
    let bytes = 0;
    for (const event of [...this.data.events].reverse().slice(0, max)) {
      bytes += byteLength(event);
      if (bytes > maxBytes) break;
      kept.unshift(clone(event));
    }
    return kept;
  }

  recordFirstResponder(responder: string | undefined, owner: string | undefined): void {
    if (responder) this.data.firstResponder = responder;
    if (owner) this.data.owner = owner;
  }

  get owner(): string | undefined {
    return this.data.owner;
  }

  /** The audience of the task: who may see it (see mayAccessTask), as its metadata shows it. */
  get audience(): TaskAudience {
    const { owner, participants } = this.data;
    const { pending } = this;
    return {
      ...(owner && { owner }),
      ...(pending && { pendingQuestion: pending }),
      ...(this.openQuestions.length > 1 && { pendingQuestions: this.openQuestions }),
      ...(participants && { participants }),
    };
  }

  /** An authenticated principal answered: it keeps seeing the task. */
  addParticipant(principal: string): void {
    if (principal === this.data.owner) return;
    this.data.participants ??= [];
    if (!this.data.participants.includes(principal)) this.data.participants.push(principal);
  }

  get firstResponder(): string | undefined {
    return this.data.firstResponder;
  }

  /** Whether the task's answers are signed into receipts (TaskSnapshot's `receipts`). */
  get receiptsAsked(): boolean {
    return this.data.receipts ?? true;
  }

  /** Who asked for the task: its owner, else who sent its first message. */
  get requester(): string | undefined {
    return this.data.owner ?? this.data.firstResponder;
  }

  /** Everything, for continue-as-new; only the latest events, which late subscribers may still need. */
  snapshot(keepEvents = CARRIED_EVENTS): TaskSnapshot {
    const copy = clone(this.data);
    copy.events = copy.events.slice(-keepEvents);
    return copy;
  }

  selectPushEvents(selection: PushEventSelection): void {
    this.pushSelection = selection;
  }

  /**
   * A new webhook, or new settings for one (its undelivered notifications stay queued). A new URL
   * starts afresh: the old one's failures say nothing of it.
   */
  setPushConfig(config: PushConfig): void {
    this.data.pushConfigs ??= [];
    const existing = this.storedPushConfig(config.id);
    if (existing) {
      if (existing.config.url !== config.url) delete existing.lastFailure;
      existing.config = clone(config);
    } else this.data.pushConfigs.push({ config: clone(config), pending: [], delivered: 0 });
  }

  deletePushConfig(id: string): void {
    if (this.data.pushConfigs) this.data.pushConfigs = this.data.pushConfigs.filter((s) => s.config.id !== id);
  }

  pushConfig(id: string): Readonly<StoredPushConfig> | undefined {
    return this.storedPushConfig(id);
  }

  private storedPushConfig(id: string): StoredPushConfig | undefined {
    return this.data.pushConfigs?.find((stored) => stored.config.id === id);
  }

  get pushConfigs(): ReadonlyArray<Readonly<StoredPushConfig>> {
    return this.data.pushConfigs ?? [];
  }

  /** The configs with their delivery state, without the queued notifications. */
  pushConfigViews(): Array<PushConfig & PushDeliveryState> {
    return this.pushConfigs.map(({ config, pending: _pending, ...state }) => clone({ ...config, ...state }));
  }

  /** How deliveries to each webhook stand, for operators (`tasks show`); secrets stay out. */
  private pushDeliveryViews(): PushDeliveryView[] {
    return this.pushConfigs.map(({ config, pending, ...state }) =>
      clone({ id: config.id, url: config.url, pending: pending.length, ...state }),
    );
  }

  /** The oldest undelivered notification of a config failed, and is being retried. */
  pushFailing(id: string, reason: string): void {
    const stored = this.storedPushConfig(id);
    if (stored) stored.lastFailure = { at: this.now(), reason };
  }

  /** The oldest undelivered notification of a config was sent (or given up on): the next one is due. */
  pushSettled(id: string, outcome: { ok: true } | { ok: false; reason: string }): void {
    const stored = this.storedPushConfig(id);
    if (!stored) return;
    stored.pending.shift();
    const at = this.now();
    if (outcome.ok) {
      stored.delivered += 1;
      stored.lastSuccess = at;
    } else {
      stored.lastFailure = { at, reason: outcome.reason };
    }
  }

  private push(event: DistributiveOmit<TaskEvent, 'seq'>): void {
    const numbered = { ...clone(event), seq: this.lastSeq + 1 } as TaskEvent;
    this.data.events.push(numbered);
    if (!this.data.pushConfigs || !this.notifies(numbered)) return;
    for (const stored of this.data.pushConfigs) stored.pending.push(clone(numbered));
  }

  /** Direct messages answer their sender; webhooks follow the task, as far as the agent selected. */
  private notifies(event: TaskEvent): boolean {
    const { states, artifacts = true } = this.pushSelection;
    if (event.kind === 'artifact') return artifacts;
    if (event.kind === 'message') return false;
    return states === undefined || states.includes(fromWireState(event.status.state) ?? 'submitted');
  }
}

/** Input-required while any open question is an input question; auth-required when all are auth. */
export function interruptedState(questions: readonly PendingQuestion[]): TaskStateName {
  return questions.some((question) => question.kind === 'input') ? 'input-required' : 'auth-required';
}

/** JSON deep copy: the workflow sandbox has no structuredClone, and all task data is JSON. */
function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Appends a chunk's parts to an artifact's, text that continues a plain text part joining it. */
function appendText(parts: WirePart[], chunk: WirePart[]): void {
  for (const part of chunk) {
    const last = parts.at(-1);
    if (isPlainText(part) && last && isPlainText(last)) last.text += part.text;
    else parts.push(part);
  }
}

function isPlainText(part: WirePart): part is WirePart & { text: string } {
  return typeof part.text === 'string' && Object.keys(part).length === 1;
}
