/**
 * One task's live state inside its workflow: the record, the pending question's wait, the
 * cancellation request, and the update/query handlers that the gateway and operators talk to.
 * Every state change goes through `changeState` or `askQuestion`, which also refresh what operators
 * see and wake senders waiting for the task to settle (both call `publish`).
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  currentUpdateInfo,
  log,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
  uuid4,
} from '@temporalio/workflow';
import {
  activityRetryingSignal,
  cancelTaskUpdate,
  answeredQuestion,
  ANSWERS_QUESTION_METADATA,
  completeAuthUpdate,
  isAllowedResponder,
  mayAccessTask,
  eventsQuery,
  sendMessageUpdate,
  snapshotQuery,
  SUMMARY_MEMO,
  taskQuery,
  type ActivityRetrying,
  type AuthCompletion,
  type CancelRequest,
  type IncomingMessage,
  type MessageAccepted,
} from '../protocol/contract.js';
import type { AnswerChannel } from '../protocol/answer-channel.js';
import type { Question } from '../protocol/question.js';
import type { Caller } from '../protocol/caller.js';
import {
  firstChangeSince,
  TaskErrorType,
  type RefusedReplyStanding,
  type WrongAgentDetails,
} from '../protocol/errors.js';
import { modelOutputSignal, type ModelOutputChunk } from '../protocol/llm.js';
import {
  REMOTE_PUSH_PENDING,
  REMOTE_PUSH_UNKNOWN,
  remoteArtifactsSignal,
  remotePushUpdate,
  type RemoteArtifactChunks,
} from '../protocol/delegation.js';
import {
  AGENT_ATTRIBUTE,
  ASKED_AT_ATTRIBUTE,
  CONTEXT_ID_ATTRIBUTE,
  INPUT_DEADLINE_ATTRIBUTE,
  RESPONDERS_ATTRIBUTE,
  TASK_STATE_ATTRIBUTE,
} from '../protocol/search-attributes.js';
import { isSettled, toWireState, type TaskStateName } from '../protocol/states.js';
import { spanText, utcMinuteText } from '../protocol/time-text.js';
import { dataOf, textOf, type JsonObject, type WireMessage, type WirePart } from '../protocol/wire.js';
import type { Reply, UserMessage } from './agent-api.js';
import { MAX_MESSAGE_BYTES, messageProblem, partsOf, sizeProblem } from '../protocol/message-checks.js';
import {
  deletePushConfigUpdate,
  pushConfigsQuery,
  setPushConfigUpdate,
  type PushConfig,
  type PushConfigChange,
} from '../protocol/push.js';
import { ApproverNotifications } from './approver-notifications.js';
import { questionAnswered } from './approval-metrics.js';
import { PushDeliveries } from './push-deliveries.js';
import {
  hasPatch,
  keepsQuestionsOnStatus,
  PATCH,
  recordsAskedAt,
  recordsResponders,
  settlesWithoutConditionRounds,
  sparesQuorumVoters,
} from './task-patches.js';
import type { ReplyWait } from './reply-wait.js';
import { interruptedState, type TaskRecord, type TransitionOptions } from './task-record.js';
import { uiText } from '../protocol/ui-text.js';
import { deputiesOf, deputyWindowText, isActingAt, type Deputy } from '../protocol/deputies.js';
import { askingParts } from '../protocol/receipts.js';
import { quorumText } from '../protocol/quorum.js';
import { castVote, voteProblem, type Voter } from './question-quorum.js';

/** A model call whose text streams into an artifact (see llm-agent.ts). */
export interface ModelStream {
  artifactId: string;
  name: string;
  /** Characters appended so far; a chunk is taken only if it starts here. */
  received: number;
  /** Streamed text beyond this is dropped (the final artifact chunk holds the capped text). */
  maxChars: number;
  /** The model call's attempt whose text the artifact holds (set by its first chunk). */
  attempt?: number;
}

/** A message from the agent in this task, as its status message or the question it asks. */
export function agentMessage(runtime: TaskRuntime, text: string): WireMessage {
  return {
    messageId: uuid4(),
    contextId: runtime.record.contextId,
    taskId: runtime.record.id,
    role: 'ROLE_AGENT',
    parts: [{ text }],
  };
}

/**
 * An ended task rides in the settled answer up to this size. The workflow's result holds it again
 * in the same workflow task, and both must stay well under Temporal's 4 MB gRPC message limit.
 */
const SETTLED_TASK_MAX_BYTES = 256 * 1024;
/** Every event is sent to every config: a bound keeps one task's history and fan-out in proportion. */
const MAX_PUSH_CONFIGS = 10;

export class TaskRuntime {
  /** The questions the agent waits on now, by question id (reply-wait.ts). */
  readonly waits = new Map<string, ReplyWait>();
  /** Resolves when the agent first waits for a reply (from release 2 on, task-workflow.ts watches for continue-as-new from then). */
  readonly firstReplyWait: Promise<void>;
  private firstReplyWaitStarted!: () => void;
  /** Senders waiting for the task to settle (release 2, task-patches.ts); `publish` wakes them. */
  private settledWaits: (() => void)[] = [];
  readonly modelStreams = new Map<string, ModelStream>();
  /** Calls whose remote task streams now (remote-agent-call.ts): their artifacts' chunks are taken. */
  readonly remoteStreams = new Set<string>();
  /** Calls that a remote task's push may wake, by their token; true while a wake is pending. */
  readonly remotePushes = new Map<string, boolean>();
  cancelRequest?: CancelRequest;
  agentScope?: CancellationScope;
  firstMessage?: UserMessage;
  readonly push: PushDeliveries;
  readonly approvers: ApproverNotifications;
  /**
   * A run continued-as-new while its question waited re-runs the agent up to that question. A reply
   * arriving before the agent waits again is checked against the question the task still shows, then
   * held until the agent waits (`acceptResumedReply`), where the question's schema checks it too.
   */
  private questionResuming: boolean;

  constructor(readonly record: TaskRecord) {
    this.questionResuming = record.openQuestions.length > 0;
    this.push = new PushDeliveries(record);
    this.approvers = new ApproverNotifications(record);
    this.firstReplyWait = new Promise((resolve) => (this.firstReplyWaitStarted = resolve));
    const first = record.history.find((message) => message.role === 'ROLE_USER');
    if (first) this.firstMessage = toUserMessage(first, record.firstResponder);
  }

  changeState(to: TaskStateName, options: TransitionOptions = {}): void {
    // A status update (`ctx.status`, a remote question withdrawn) while questions still wait: the task
    // stays interrupted with them, its status text leading the questions (docs/a2a-mapping.md).
    if (to === 'working' && this.openWaits().length > 0 && keepsQuestionsOnStatus()) {
      return this.changeState(interruptedState(this.record.openQuestions), {
        ...options,
        message: this.statusBesideQuestions(options.message),
      });
    }
    const from = this.record.state;
    this.record.transition(to, options);
    // Before publishing: the approvers it tells of a canceled or failed task join its audience.
    this.approvers.taskEnded();
    this.publish();
    // The workflow logger adds workflowId and runId.
    log.info('task state changed', {
      taskId: this.record.id,
      contextId: this.record.contextId,
      from,
      to,
      by: options.by,
    });
  }

  /** The open questions as the task shows them, after the status text of an update made while they wait. */
  private statusBesideQuestions(status: WireMessage | undefined): WireMessage {
    const open = this.record.openQuestions;
    const asking = this.openQuestionsMessage(open);
    return { ...asking, parts: [...(status?.parts ?? []), ...asking.parts] };
  }

  /** The agent asks: the task is input-required (or auth-required) with this question, beside any still open. */
  askQuestion(question: Question): void {
    const open = [...this.record.openQuestions, question];
    this.record.showQuestion(question, this.openQuestionsMessage(open));
    this.publish();
  }

  /** A waiting question whose reply came (or whose deadline passed): the task waits on the others, or works again. */
  questionClosed(wait: ReplyWait, by: string, actingFor?: string): void {
    const transition = { by, ...(actingFor && { actingFor }) };
    const open = this.record.removeQuestion(wait.question.id);
    if (open.length === 0) return this.changeState('working', transition);
    const message = this.openQuestionsMessage(open);
    this.changeState(interruptedState(open), { message, ...transition });
  }

  /** The agent waits for a reply to its question. */
  startWaiting(wait: ReplyWait): void {
    this.waits.set(wait.question.id, wait);
    this.questionResuming = false;
    this.firstReplyWaitStarted();
    this.approvers.questionAsked(wait);
  }

  stopWaiting(wait: ReplyWait): void {
    this.approvers.questionClosed(wait);
    this.waits.delete(wait.question.id);
    // Withdrawn or canceled beside others still open: it stops showing (alone, it shows until the next transition).
    if (!wait.reply) this.record.removeQuestion(wait.question.id);
  }

  /** The open questions that still wait for their reply. */
  private openWaits(): ReplyWait[] {
    return [...this.waits.values()].filter((wait) => wait.reply === undefined);
  }

  /** What the task shows while `open` wait: the question alone, or all of them. */
  private openQuestionsMessage(open: readonly Question[]): WireMessage {
    return open.length === 1 ? this.questionMessage(open[0]!) : this.questionsMessage(open);
  }

  /** A question alone: its prompt, and its details as a DataPart; a quorum question's tally and votes after them. */
  private questionMessage(question: Question): WireMessage {
    return { ...agentMessage(this, question.prompt), parts: [...askingParts(question), ...quorumParts(question)] };
  }

  /** Several questions: each listed by its id, and all as a DataPart (docs/a2a-mapping.md). */
  private questionsMessage(questions: readonly Question[]): WireMessage {
    const lines = questions.map(
      (question) => `- ${question.id}: ${question.prompt}${question.quorum ? ` (${quorumText(question.quorum)})` : ''}`,
    );
    const text = `${questions.length} questions wait for an answer; a reply names the one it answers (metadata "${ANSWERS_QUESTION_METADATA}": {"question": "<id>"}):\n${lines.join('\n')}`;
    const message = agentMessage(this, text);
    message.parts.push({ data: { questions: questions.map(questionEntry) } });
    return message;
  }

  /**
   * Search attributes and current details follow every transition, and senders waiting for the task
   * to settle are woken (every transition comes through here).
   */
  publish(): void {
    // Visibility rows carry the memo: ListTasks reads a page of tasks without a query per task, and
    // the gateway who may see it (TaskAudience) before any query.
    if (hasPatch(PATCH.summaryMemo)) upsertMemo({ [SUMMARY_MEMO]: this.record.summary() });
    // The soonest deadline; and when the open questions last changed (the inbox's index re-reads a
    // task whose questions changed since it last looked): for one question, when it was asked or escalated.
    const open = this.record.openQuestions;
    const deadline = open
      .map((question) => question.deadline)
      .filter((at) => at !== undefined)
      .sort()[0];
    const askedAt =
      open.length > 0
        ? [
            ...open.flatMap((question) => [question.askedAt, ...(question.escalated ?? []).map(({ at }) => at)]),
            this.record.statusTimestamp,
          ]
            .sort()
            .at(-1)
        : undefined;
    upsertSearchAttributes([
      { key: TASK_STATE_ATTRIBUTE, value: this.record.state },
      { key: CONTEXT_ID_ATTRIBUTE, value: this.record.contextId },
      { key: AGENT_ATTRIBUTE, value: this.record.agent },
      { key: INPUT_DEADLINE_ATTRIBUTE, value: deadline ? new Date(deadline) : null },
      ...(recordsResponders() ? [{ key: RESPONDERS_ATTRIBUTE, value: this.record.listedResponders() ?? null }] : []),
      ...(recordsAskedAt() ? [{ key: ASKED_AT_ATTRIBUTE, value: askedAt ? new Date(askedAt) : null }] : []),
    ]);
    this.publishDetails();
    if (this.settledWaits.length > 0 && isSettled(this.record.state)) {
      for (const wake of this.settledWaits.splice(0)) wake();
    }
  }

  /**
   * Resolves once the task is settled. Woken by the transition itself, in the same round of the
   * workflow's microtasks, where a condition would wait for Temporal's next evaluation of conditions.
   */
  private settled(): Promise<void> {
    if (isSettled(this.record.state)) return Promise.resolve();
    return new Promise((resolve) => this.settledWaits.push(resolve));
  }

  /**
   * The operator's "current details" line. Not a workflow command, so a new run after
   * continue-as-new (which search attributes survive, but details do not) can set it freely. The UI
   * renders it as Markdown: the state is bold, the agent's and people's words are text (uiText).
   */
  publishDetails(): void {
    const { state, pending, statusText } = this.record;
    const deadline = pending?.deadline ? ` (${deadlineText(pending.askedAt, pending.deadline)})` : '';
    // Who may answer, where operators look first (`temporal workflow metadata`, the UI's workflow page).
    const responders = this.record.respondersNow();
    const who = responders ? ` (may answer: ${uiText(responders.join(', '))})` : '';
    const open = this.record.openQuestions;
    const prompt =
      open.length > 1 ? `${open.length} questions: ${open.map((q) => q.prompt).join('; ')}` : pending?.prompt;
    setCurrentDetails(
      pending
        ? `**${state}**${who}: ${uiText(prompt ?? '')}${deadline}`
        : `**${state}**${statusText ? `: ${uiText(statusText)}` : ''}`,
    );
  }

  registerHandlers(): void {
    setHandler(modelOutputSignal, (chunk) => this.appendModelOutput(chunk));
    setHandler(activityRetryingSignal, (retry) => this.activityRetrying(retry));
    setHandler(remoteArtifactsSignal, (batch) => this.mirrorRemoteArtifacts(batch));
    // A refused push leaves no trace in history: one from a stranger, or one while a wake is pending.
    setHandler(remotePushUpdate, ({ token }) => void this.remotePushes.set(token, true), {
      validator: (push) => {
        const pending = this.remotePushes.get(push?.token);
        if (pending === undefined) reject(REMOTE_PUSH_UNKNOWN, 'No call of this task waits for a push with this token');
        if (pending) reject(REMOTE_PUSH_PENDING, 'The call is already woken');
      },
    });
    setHandler(sendMessageUpdate, (incoming) => this.acceptMessage(incoming), {
      validator: (incoming) => this.validateMessage(incoming),
    });
    setHandler(
      cancelTaskUpdate,
      async (request) => {
        this.cancelRequest ??= { ...request, ...(request.caller && { by: request.caller.id }) };
        this.agentScope?.cancel();
        // Not cancellable: a Temporal cancel arriving meanwhile must not fail this A2A cancel.
        await CancellationScope.nonCancellable(() => condition(() => this.record.isTerminal));
        return this.record.header();
      },
      {
        validator: (request) => {
          this.checkOwner(request?.caller);
          this.checkAgent(request?.agent);
          const { owner } = this.record;
          if (request?.caller && owner && request.caller.id !== owner) {
            reject(TaskErrorType.TaskNotCancelable, `Only the task's owner may cancel task ${this.record.id}`);
          }
          if (this.record.isTerminal) {
            reject(TaskErrorType.TaskNotCancelable, `Task is ${this.record.state} and can no longer be canceled`);
          }
        },
      },
    );
    setHandler(
      completeAuthUpdate,
      async (completion) => {
        if (this.heldUntilWaiting()) await this.acceptResumedReply(() => this.validateAuthCompletion(completion));
        const by = completion?.caller?.id ?? (typeof completion?.by === 'string' ? completion.by : 'auth-callback');
        const data = completion?.data;
        const wait = this.outOfBandWait();
        if (wait) this.answerWait(wait, { ...emptyReply(), data, value: data, responder: by }, by, 'temporal');
        return this.record.header();
      },
      {
        validator: (completion) => this.validateAuthCompletion(completion),
      },
    );
    setHandler(
      setPushConfigUpdate,
      ({ config }) => {
        this.record.setPushConfig(config);
        this.push.follow(config.id);
        return config;
      },
      {
        validator: (change) => {
          this.checkAccess(change);
          this.checkPushConfig(change?.config);
        },
      },
    );
    setHandler(deletePushConfigUpdate, ({ id }) => this.record.deletePushConfig(id), {
      validator: (change) => this.checkAccess(change),
    });
    setHandler(pushConfigsQuery, () => this.record.pushConfigViews());
    setHandler(taskQuery, (args) => this.record.view(args?.historyLength));
    setHandler(eventsQuery, (afterSeq) => this.record.eventsSince(afterSeq));
    setHandler(snapshotQuery, (args) => ({ task: this.record.view(args.historyLength), lastSeq: this.record.lastSeq }));
  }

  /**
   * The checks a reply gets: who may see the task, its agent, a question still open, the deadline,
   * who may answer; a late completion after an outage is refused as a late reply is.
   */
  private validateAuthCompletion(completion: AuthCompletion | undefined): void {
    const problem = sizeProblem(completion ?? {}, MAX_MESSAGE_BYTES, 'The completion');
    if (problem) reject(TaskErrorType.InvalidReply, problem);
    this.checkOwner(completion?.caller);
    this.checkAgent(completion?.agent);
    const wait = this.outOfBandWait();
    if (!wait) reject(TaskErrorType.TaskNotWaitingForInput, 'Task is not waiting for an out-of-band authorization');
    this.checkDeadline(wait);
    this.checkResponder(wait, completion?.caller, typeof completion?.by === 'string' ? completion.by : undefined);
  }

  /** The out-of-band authorization that waits (the earliest, should there be several). */
  private outOfBandWait(): ReplyWait | undefined {
    return this.waitingFor().find((wait) => wait.question.outOfBand);
  }

  /** The questions a reply may answer: the agent's, or while it resumes (see questionResuming), the task's. */
  private waitingFor(): ReplyWait[] {
    if (!this.heldUntilWaiting()) return this.openWaits();
    return this.record.openQuestions.map((question) => ({ question }));
  }

  /**
   * Whether a reply is held (below). Asked before any await: every other reply is applied in the
   * handler's first synchronous step, as it always was, so the history's commands keep their order.
   */
  private heldUntilWaiting(): boolean {
    return this.waits.size === 0 && this.questionResuming;
  }

  /**
   * A reply validated while the question resumed waits until the agent waits again (in the same
   * workflow task, as the journal replays the agent up to its questions), then is checked again in
   * full; refused then, the update fails with the same error a validator would have given.
   */
  private async acceptResumedReply(validate: () => void): Promise<void> {
    await condition(() => !this.questionResuming || this.record.openQuestions.length === 0);
    validate();
  }

  private validateMessage(incoming: IncomingMessage): void {
    if (this.isDuplicate()) return;
    const problem = messageProblem(incoming);
    if (problem) reject(TaskErrorType.InvalidReply, problem);
    // Owner first: a stranger learns nothing, not even which agent the task belongs to.
    this.checkOwner(incoming.caller);
    this.checkAgent(incoming.agent);
    try {
      this.checkReply(incoming);
    } catch (error) {
      // The caller may see the task: the refusal says where it stands, so a page that showed the
      // question tells what became of it without reading the task again.
      throw withDetails(error, this.standing(incoming));
    }
  }

  /** Where the task stands for a refused reply (see RefusedReplyStanding). */
  private standing(incoming: IncomingMessage): RefusedReplyStanding {
    const { pending, timeline } = this.record;
    const named = answeredQuestion(incoming.metadata);
    const askedAt = named.askedAt ?? this.record.openQuestions.find((question) => question.id === named.id)?.askedAt;
    const change = firstChangeSince(timeline, askedAt);
    return {
      state: toWireState(this.record.state),
      ...(pending && { question: { kind: pending.kind, askedAt: pending.askedAt } }),
      ...(change && { change }),
    };
  }

  /** The checks of validateMessage once the caller may see the task through this agent. */
  private checkReply(incoming: IncomingMessage): void {
    const { record } = this;
    if (incoming.firstMessageOnly && this.firstMessage) {
      reject(
        TaskErrorType.IdempotencyKeyReused,
        `The idempotency key already started task ${record.id} with another message; use a new key for a new task`,
      );
    }
    if (incoming.pushConfig) this.checkPushConfig(incoming.pushConfig);
    if (record.isTerminal) {
      reject(TaskErrorType.TaskTerminal, `Task ${record.id} is ${record.state} and accepts no more messages`);
    }
    if (incoming.contextId && incoming.contextId !== record.contextId) {
      reject(
        TaskErrorType.ContextMismatch,
        `contextId ${incoming.contextId} does not match task ${record.id} (context ${record.contextId})`,
      );
    }
    const parts = partsOf(incoming);
    if (parts.length === 0) reject(TaskErrorType.InvalidReply, 'The message has no parts: send text, parts or data');
    if (!this.firstMessage) return;
    const wait = this.answeredWait(incoming);
    if (wait.question.outOfBand) {
      reject(TaskErrorType.TaskNotWaitingForInput, 'Task waits for an out-of-band authorization, not a message');
    }
    this.checkDeadline(wait);
    this.checkResponder(wait, incoming.caller, incoming.responder);
    if (wait.question.quorum) {
      const problem = voteProblem(wait.question, voterOf(wait.question, incoming), textOf(parts), dataOf(parts));
      if (problem) reject(TaskErrorType.ResponderNotAllowed, problem);
    }
    if (wait.schema) {
      const parsed = wait.schema.safeParse(dataOf(parts));
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ');
        reject(TaskErrorType.InvalidReply, `The reply does not match the expected data: ${issues}`);
      }
    }
  }

  /**
   * The question a reply answers: the one its metadata names (ANSWERS_QUESTION_METADATA: by id, or
   * by askedAt), else the one open; several open, a reply must name one.
   */
  private answeredWait(incoming: IncomingMessage): ReplyWait {
    const { record } = this;
    const open = this.waitingFor();
    if (open.length === 0) {
      reject(
        TaskErrorType.TaskNotWaitingForInput,
        `Task ${record.id} is ${record.state}, not waiting for input; wait for input-required before replying`,
      );
    }
    const ids = open.map((wait) => wait.question.id).join(', ');
    const named = answeredQuestion(incoming.metadata);
    if (named.id !== undefined) {
      const wait = open.find((candidate) => candidate.question.id === named.id);
      if (!wait) {
        reject(
          TaskErrorType.TaskNotWaitingForInput,
          `The reply answers question ${named.id}, which no longer waits; task ${record.id} waits on ${ids}`,
        );
      }
      return wait;
    }
    if (named.askedAt !== undefined) {
      const asked = open.filter((candidate) => candidate.question.askedAt === named.askedAt);
      if (asked.length === 1) return asked[0]!;
      if (asked.length === 0 && open.length === 1) {
        reject(
          TaskErrorType.TaskNotWaitingForInput,
          `The reply answers the question asked at ${named.askedAt}; task ${record.id} now waits on the one asked at ${open[0]!.question.askedAt}`,
        );
      }
      if (asked.length === 0) {
        reject(
          TaskErrorType.TaskNotWaitingForInput,
          `The reply answers the question asked at ${named.askedAt}, which no longer waits; task ${record.id} waits on ${ids}`,
        );
      }
    } else if (open.length === 1) return open[0]!;
    reject(
      TaskErrorType.InvalidReply,
      `Task ${record.id} waits on ${open.length} questions (${ids}): name the one this reply answers with metadata "${ANSWERS_QUESTION_METADATA}": {"question": "<id>"}`,
    );
  }

  /**
   * A worker that was down when the deadline passed sees a late answer before the deadline's timer:
   * the deadline's outcome wins, as it would have with the worker up.
   */
  private checkDeadline({ question }: ReplyWait): void {
    const { deadline } = question;
    if (deadline && Date.now() >= Date.parse(deadline)) {
      reject(TaskErrorType.TaskNotWaitingForInput, `The question's deadline passed at ${deadline}; no more replies`);
    }
  }

  /**
   * Authenticated callers are checked by principal and groups; operators (no caller) by the name they
   * give. One who is neither may answer as a deputy, within their window by the workflow's clock.
   */
  private checkResponder({ question }: ReplyWait, caller: Caller | undefined, named: string | undefined): void {
    const who = caller?.id ?? named;
    const { responders, notByRequester } = question;
    if (responders && !isDirectResponder(question, caller, named) && !actingFor(question, who)) {
      const windows = deputiesOf(question, who);
      reject(
        TaskErrorType.ResponderNotAllowed,
        windows.length > 0
          ? `${who} may answer this question only as the deputy of ${windows.map(deputyWindowText).join(', ')}; not at ${new Date().toISOString()}`
          : `Only ${responders.join(', ')} may answer this question${who ? `, not ${who}` : ''}`,
      );
    }
    if (notByRequester && who !== undefined && who === this.record.requester) {
      reject(TaskErrorType.ResponderNotAllowed, 'The requester may not answer their own request; another person must');
    }
  }

  /** A task's push configs are its owner's: an approver sees the task but may not redirect its webhooks. */
  private checkAccess(change: PushConfigChange): void {
    this.checkOwner(change?.caller);
    this.checkAgent(change?.agent);
    const { owner } = this.record;
    if (change?.caller && owner && change.caller.id !== owner) {
      reject(
        TaskErrorType.NotTaskOwner,
        `Only the owner of task ${this.record.id} manages its push notification configs`,
      );
    }
  }

  /** Also for a config that comes with a message (an operator may type anything into the Temporal UI). */
  private checkPushConfig(config: PushConfig | undefined): void {
    if (typeof config?.id !== 'string' || !config.id || typeof config.url !== 'string') {
      reject(TaskErrorType.InvalidReply, 'A push notification config needs an id and a url');
    }
    if (!this.record.pushConfig(config.id) && this.record.pushConfigs.length >= MAX_PUSH_CONFIGS) {
      reject(TaskErrorType.InvalidReply, `A task has at most ${MAX_PUSH_CONFIGS} push notification configs`);
    }
  }

  /** For an authenticated caller who neither owns the task nor may answer it, the task does not exist. */
  private checkOwner(caller: Caller | undefined): void {
    if (!mayAccessTask(this.record.audience, caller)) {
      reject(TaskErrorType.NotVisibleToCaller, `Task ${this.record.id} not found`);
    }
  }

  /** A task is reachable only through its own agent's endpoint. */
  private checkAgent(agent: string | undefined): void {
    if (agent !== undefined && agent !== this.record.agent) {
      // Its agent is named (in the details) only to a caller checkOwner let through.
      const details: WrongAgentDetails = { agent: this.record.agent };
      reject(TaskErrorType.WrongAgent, `Task ${this.record.id} belongs to another agent than ${agent}`, details);
    }
  }

  /** A Schedule's run: its first message comes with the input, checked as the Update's validator checks one. */
  takeFirstMessage(incoming: IncomingMessage): void {
    this.validateMessage(incoming);
    this.applyMessage(incoming);
  }

  /**
   * A message arrives. A sender that waits for the answer (untilSettled) gets it in this update's
   * own result once the task settles (terminal, or waiting for input again), instead of reading
   * the task with further calls.
   */
  private async acceptMessage(incoming: IncomingMessage): Promise<MessageAccepted> {
    if (this.heldUntilWaiting() && !this.isDuplicate()) {
      await this.acceptResumedReply(() => this.validateMessage(incoming));
    }
    const creates = !this.firstMessage;
    const accepted = this.applyMessage(incoming);
    if (!incoming.untilSettled || accepted.duplicate || !hasPatch(PATCH.settledAnswer)) return accepted;
    // Neither wait ends on a Temporal cancel: that settles the task as canceled, which is this sender's answer too.
    // Woken, the sender looks again: agent code may have changed the state since (e.g. a status from a parallel branch).
    if (settlesWithoutConditionRounds()) while (!isSettled(this.record.state)) await this.settled();
    else await CancellationScope.nonCancellable(() => condition(() => isSettled(this.record.state)));
    const directMessage = this.record.directMessage;
    const notifying = this.record.pushConfigs.length > 0;
    // An ended task is whole in the answer, so the sender needs no read after it; so is a new task
    // where it first settles (a create costs one call). Each once per task, so history stays linear;
    // a task waiting again after a reply is not: that sender reads it.
    const whole = this.record.isTerminal || creates;
    const task = whole ? this.record.viewWithin(SETTLED_TASK_MAX_BYTES) : undefined;
    const settled = {
      state: this.record.state,
      ...(directMessage && { directMessage }),
      ...(notifying && { notifying }),
      ...(task && { task }),
    };
    return { ...accepted, settled };
  }

  private applyMessage(incoming: IncomingMessage): MessageAccepted {
    const key = currentUpdateInfo()?.id;
    if (this.isDuplicate()) {
      return { ...this.headerAnswer(), lastSeq: this.record.lastSeq, duplicate: true };
    }
    const lastSeq = this.record.lastSeq;
    const message: WireMessage = {
      messageId: incoming.messageId ?? uuid4(),
      contextId: this.record.contextId,
      taskId: this.record.id,
      role: 'ROLE_USER',
      parts: partsOf(incoming),
      ...(incoming.metadata && { metadata: incoming.metadata }),
      ...(incoming.referenceTaskIds?.length && { referenceTaskIds: incoming.referenceTaskIds }),
    };
    this.record.addUserMessage(message, key);
    // Before the message's effects: its config hears of the first event it causes.
    if (incoming.pushConfig) {
      this.record.setPushConfig(incoming.pushConfig);
      this.push.follow(incoming.pushConfig.id);
    }
    const responder = incoming.caller?.id ?? incoming.responder;
    const user = toUserMessage(message, responder);
    if (!this.firstMessage) {
      this.firstMessage = user;
      this.record.recordFirstResponder(responder, incoming.caller?.id);
    } else {
      // Validated just now: the reply names (or is the only) question still waiting.
      const wait = this.waits.get(this.answeredWait(incoming).question.id);
      const value = wait?.schema ? wait.schema.parse(user.data) : user.data;
      if (incoming.caller) this.record.addParticipant(incoming.caller.id);
      if (wait) {
        const { question } = wait;
        const deputyFor = isDirectResponder(question, incoming.caller, incoming.responder)
          ? undefined
          : actingFor(question, responder);
        const channel = incoming.channel ?? 'temporal';
        if (question.quorum && !this.voteDecides(wait, voterOf(question, incoming), user, channel)) {
          return { ...this.headerAnswer(), lastSeq, duplicate: false };
        }
        this.answerWait(
          wait,
          {
            ...user,
            value,
            timedOut: false,
            ...(deputyFor && { actingFor: deputyFor }),
            ...(question.votes && { votes: question.votes }),
          },
          responder ?? 'user',
          channel,
        );
        questionAnswered(question);
      }
    }
    return { ...this.headerAnswer(), lastSeq, duplicate: false };
  }

  private headerAnswer(): Pick<MessageAccepted, 'task' | 'leftOut'> {
    return { task: this.record.header(), leftOut: this.record.headerLeftOut() };
  }

  /**
   * An agent's activity failed and is tried again: a working task says so (which activity, which
   * attempt; not why, which stays in the worker's log), rather than look busy while Temporal retries.
   */
  private activityRetrying(retry: ActivityRetrying): void {
    if (this.record.state !== 'working' || typeof retry?.activityType !== 'string') return;
    const text = `${retry.activityType} failed (attempt ${Number(retry.attempt)}) and is being retried; the worker's log says why`;
    this.changeState('working', { message: agentMessage(this, text), by: 'worker' });
  }

  /**
   * Streamed model text: appended to the stream's artifact in order; repeats and gaps are dropped.
   * The first chunk of a retried call (a later attempt, at offset 0) restarts the artifact: the
   * failed attempt's text is replaced, not continued; a late chunk of an earlier attempt is dropped.
   */
  private appendModelOutput(chunk: ModelOutputChunk): void {
    const stream = this.modelStreams.get(chunk?.streamId);
    if (!stream || typeof chunk.text !== 'string') return;
    if (typeof chunk.attempt === 'number' && chunk.attempt !== stream.attempt) {
      if (chunk.attempt < (stream.attempt ?? 0) || chunk.offset !== 0) return;
      stream.attempt = chunk.attempt;
      stream.received = 0;
    }
    if (chunk.offset !== stream.received) return;
    const text = chunk.text.slice(0, Math.max(0, stream.maxChars - stream.received));
    if (text.length === 0) return;
    this.record.addArtifact(
      { artifactId: stream.artifactId, name: stream.name, parts: [{ text }] },
      stream.received > 0,
      false,
      true,
    );
    stream.received += chunk.text.length;
  }

  /**
   * A streaming call's remote artifacts, as this task's `<remote task>-<artifact>`: parts this task
   * has already (a resumed stream repeats them) are skipped, and a batch past a gap is dropped.
   */
  private mirrorRemoteArtifacts(batch: RemoteArtifactChunks): void {
    if (!this.remoteStreams.has(batch?.callId) || !Array.isArray(batch.chunks)) return;
    for (const chunk of batch.chunks) {
      const artifactId = `${batch.taskId}-${chunk.artifactId}`;
      const have = this.record.artifactPartCount(artifactId);
      const parts = chunk.parts.slice(have - chunk.offset);
      if (chunk.offset > have || (parts.length === 0 && !chunk.lastChunk)) continue;
      const artifact = { artifactId, parts, ...(chunk.name && { name: chunk.name }) };
      this.record.addArtifact(artifact, have > 0, chunk.lastChunk ?? false);
    }
  }

  /**
   * A vote on a quorum question: the question keeps it; one that does not decide leaves the task
   * waiting, its status showing the tally, the voter in its timeline. Whether it decided.
   */
  private voteDecides(wait: ReplyWait, voter: Voter, user: UserMessage, channel: AnswerChannel): boolean {
    const { question } = wait;
    const decided = castVote(question, voter, user.text, user.data, { at: new Date().toISOString(), channel });
    this.record.voted(question, question.votes!.at(-1)!);
    if (decided) return true;
    this.approvers.questionVoted(wait);
    const open = this.record.openQuestions;
    const message = this.openQuestionsMessage(open);
    this.changeState(interruptedState(open), {
      message,
      by: voter.who!,
      ...(voter.actingFor && { actingFor: voter.actingFor }),
    });
    return false;
  }

  /** Hands the reply to its waiting question; the task is working again from this moment, unless others wait. */
  private answerWait(wait: ReplyWait, reply: Reply, by: string, channel: AnswerChannel): void {
    wait.reply = reply;
    wait.answered = { by, channel, at: new Date().toISOString() };
    this.questionClosed(wait, by, reply.actingFor);
  }

  private isDuplicate(): boolean {
    const key = currentUpdateInfo()?.id;
    return key !== undefined && this.record.hasApplied(key);
  }
}

/**
 * "deadline 2026-11-25 14:00 UTC, 3d after it was asked". The details line stays as set until the
 * next transition, so a countdown ("in 3d") would soon be false: the span is counted from the question.
 */
export function deadlineText(askedAt: string, deadline: string): string {
  const span = spanText(Date.parse(deadline) - Date.parse(askedAt));
  return `deadline ${utcMinuteText(deadline)}, ${span} after it was asked`;
}

function reject(type: TaskErrorType | string, message: string, details?: unknown): never {
  throw ApplicationFailure.create({
    type,
    message,
    nonRetryable: true,
    ...(details !== undefined && { details: [details] }),
  });
}

/** A refusal (reject's) with `details`; anything else as it is. */
function withDetails(error: unknown, details: unknown): unknown {
  if (!(error instanceof ApplicationFailure) || !error.type) return error;
  return ApplicationFailure.create({
    type: error.type,
    message: error.message,
    nonRetryable: true,
    details: [details],
  });
}

/** Whether the one answering is among the question's responders (by principal and groups, or the name an operator gives). */
function isDirectResponder(question: Question, caller: Caller | undefined, named: string | undefined): boolean {
  const responders = question.responders ?? [];
  return caller ? isAllowedResponder(responders, caller) : responders.includes(named ?? '');
}

/**
 * Who a reply votes as on a quorum question: the one answering, whom they act for as a deputy, and
 * the groups their approval may count for: the caller's, or (release 18) a deputy's principal's.
 */
function voterOf(question: Question, incoming: IncomingMessage): Voter {
  const who = incoming.caller?.id ?? incoming.responder;
  const direct = isDirectResponder(question, incoming.caller, incoming.responder);
  const deputy = direct ? undefined : actingDeputy(question, who);
  if (!deputy) return { who, actingFor: undefined, groups: incoming.caller?.groups ?? [] };
  return { who, actingFor: deputy.for, groups: sparesQuorumVoters() ? (deputy.groups ?? []) : [] };
}

/** The deputy entry `who` answers by now (the workflow's clock), if any. */
function actingDeputy(question: Question, who: string | undefined): Deputy | undefined {
  return deputiesOf(question, who).find((deputy) => isActingAt(deputy, Date.now()));
}

/** The approver `who` answers for as a deputy now, if any. */
function actingFor(question: Question, who: string | undefined): string | undefined {
  return actingDeputy(question, who)?.for;
}

function toUserMessage(message: WireMessage, responder?: string): UserMessage {
  return {
    messageId: message.messageId,
    text: textOf(message.parts),
    parts: message.parts,
    data: dataOf(message.parts),
    ...(message.metadata && { metadata: message.metadata }),
    ...(responder && { responder }),
  };
}

/** A question as the several-questions DataPart lists it. */
function questionEntry(question: Question): JsonObject {
  const { id, prompt, details, responders, deadline, schema, quorum, votes } = question;
  return {
    id,
    text: prompt,
    ...(details?.['tool'] !== undefined && { tool: details['tool'] }),
    ...(details?.['arguments'] !== undefined && { arguments: details['arguments'] }),
    ...(responders && { responders }),
    ...(deadline && { deadline }),
    ...(schema && { schema }),
    ...(quorum && { quorum: quorum as unknown as JsonObject, votes: (votes ?? []) as unknown as JsonObject[] }),
  };
}

/** A quorum question's tally as a line of text, and with its votes as a DataPart; nothing for another question. */
function quorumParts({ quorum, votes }: Question): WirePart[] {
  if (!quorum) return [];
  return [
    { text: `Votes: ${quorumText(quorum)}` },
    { data: { quorum: quorum as unknown as JsonObject, votes: (votes ?? []) as unknown as JsonObject[] } },
  ];
}

function emptyReply(): Reply {
  return { messageId: '', text: '', parts: [], data: undefined, value: undefined, timedOut: false };
}
