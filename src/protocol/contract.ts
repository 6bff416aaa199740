/**
 * The contract between the gateway (or an operator in the Temporal UI) and a task workflow:
 * update and query definitions and their payloads. Pure module shared by both sides.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AnswerChannel } from './answer-channel.js';
import type { Caller } from './caller.js';
import { deputiesOf } from './deputies.js';
import type { PushConfig, StoredPushConfig } from './push.js';
import type { ApprovalNoticesRecord } from './approvals.js';
import type { TaskUsage } from './llm.js';
import type { Vote } from './quorum.js';
import type { Escalation, PendingQuestion, Question } from './question.js';
import type { TaskStateName } from './states.js';
import type { EventsSince, TaskEvent } from './task-events.js';
import type { JsonObject, WireArtifact, WireMessage, WirePart, WireTask, WireTaskStatus } from './wire.js';

/**
 * Arguments the workflow is started with: by the gateway (IDs, then the first message as an
 * Update), by continue-as-new (IDs and `carried`), or by a Schedule's action (`firstMessage` only).
 */
export type TaskWorkflowInput =
  | (ReceiptRequest & {
      taskId: string;
      contextId: string;
      /** Set when continuing as new: everything the previous run knew (whether it signs receipts too). */
      carried?: CarriedTaskState;
    })
  | ScheduledTaskInput;

/**
 * What a task's starter asks of it from release 15 (`receipts-when-keyed`, task-patches.ts): a starter
 * that has A2A_RECEIPT_SIGNING_KEY (a gateway; a worker, for the config's Schedules) sets `receipts`,
 * and each answer that decides a question of the task is then signed into a receipt. A task started
 * without it schedules no signing activity: a worker without the key would sign nothing anyway.
 */
export interface ReceiptRequest {
  receipts?: true;
}

/**
 * A run of a Schedule: one input for every run, so the task ID comes from the workflow ID (Temporal
 * appends the run's time to the action's), the context is new, and the first message is the input's.
 */
export interface ScheduledTaskInput extends ReceiptRequest {
  firstMessage: IncomingMessage;
}

/**
 * "A message arrives" (the first one or a follow-up). Kept small and human-writable so an operator
 * can answer from the Temporal UI with just `{"text": "approve"}`.
 */
export interface IncomingMessage {
  text?: string;
  /** Full A2A parts; when given, `text` and `data` are ignored. */
  parts?: WirePart[];
  /** A structured reply, sent as one DataPart. */
  data?: unknown;
  messageId?: string;
  contextId?: string;
  /** Who answers: the authenticated user, or "operator" when typed into the Temporal UI. */
  responder?: string;
  metadata?: JsonObject;
  referenceTaskIds?: string[];
  /** The agent whose endpoint the message came through; refused if the task is another agent's. */
  agent?: string;
  /** Set by the gateway when authentication is on: the first message's caller owns the task. Absent: an operator. */
  caller?: Caller;
  /** Set by the gateway: the way the message came (absent: typed into Temporal by an operator). */
  channel?: AnswerChannel;
  /** The sender waits for the answer: the update returns once the task settles, with `settled` set. */
  untilSettled?: boolean;
  /** SendMessage's `taskPushNotificationConfig`: stored before the message's first event. */
  pushConfig?: PushConfig;
  /**
   * Set by the gateway when an idempotency key named the task: the message must be the task's
   * first. A retry of that first message is a duplicate; any other message is refused.
   */
  firstMessageOnly?: boolean;
}

/** The HTTP header (and gRPC metadata key) that makes a retried first message land on the same task. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

export interface MessageAccepted {
  /** The task right after the message was applied, with only the latest message and no artifacts. */
  task: WireTask;
  /** Sequence number of the last event before this message's effects; stream from here. */
  lastSeq: number;
  /** True when this exact message had been applied before and nothing changed. */
  duplicate: boolean;
  /**
   * What `task` leaves out: with neither artifacts nor earlier messages it is the whole task, which a
   * sender that did not wait needs no read for (absent from workers before it was added: read it).
   */
  leftOut?: { artifacts: number; messages: number };
  /** When the sender asked to wait (untilSettled): the state the task settled in, and its direct answer, if any. */
  settled?: {
    state: TaskStateName;
    directMessage?: WireMessage;
    /**
     * The task has push configs, so its workflow may stay open after the task ended, until its
     * webhooks have the news (read it by query, not by waiting for the result).
     */
    notifying?: boolean;
    /** The whole task when it ended (terminal) or was just created, and is small enough; absent: read it. */
    task?: WireTask;
  };
}

export interface CancelRequest {
  reason?: string;
  by?: string;
  /** As in IncomingMessage: only the owner may cancel. */
  caller?: Caller;
  /** As in IncomingMessage. */
  agent?: string;
}

/** Completes an out-of-band auth-required wait (e.g. an OAuth callback). */
export interface AuthCompletion {
  by?: string;
  /**
   * The authenticated principal completing it, when the callback has one: checked as a reply's
   * sender is (who may see the task, who may answer). Without it, `by` names the completer.
   */
  caller?: Caller;
  /** The agent the completion was addressed through, when a gateway sends it. */
  agent?: string;
  /** Whatever the callback learnt (never secrets: Temporal history is not a vault). */
  data?: JsonObject;
}

export interface TaskQueryArgs {
  historyLength?: number;
}

export interface TimelineEntry {
  state: TaskStateName;
  at: string;
  message?: string;
  by?: string;
  /** `by` answered as the deputy of this approver (deputies.ts). */
  actingFor?: string;
}

/**
 * Message metadata naming the question a reply answers: its `askedAt` as a string
 * (`metadata.pendingQuestion`), or `{ question: id }` (an entry of `metadata.pendingQuestions`).
 * A reply that names a question no longer waiting is refused, so an answer given to what a page, a
 * mail or a chat message showed never lands on the next question the agent asked meanwhile.
 */
export const ANSWERS_QUESTION_METADATA = 'a2a-temporal/answers';

/** Message metadata by which the a2a-temporal CLI names itself (the channel `cli`); other clients leave it out. */
export const CLIENT_METADATA = 'a2a-temporal/client';

/** Which question a reply's metadata names (ANSWERS_QUESTION_METADATA): by id, by askedAt, or neither. */
export function answeredQuestion(metadata: Record<string, unknown> | undefined): { id?: string; askedAt?: string } {
  const named = metadata?.[ANSWERS_QUESTION_METADATA];
  if (typeof named === 'string') return { askedAt: named };
  if (typeof named !== 'object' || named === null) return {};
  const { question, askedAt } = named as { question?: unknown; askedAt?: unknown };
  return {
    ...(typeof question === 'string' && { id: question }),
    ...(typeof askedAt === 'string' && { askedAt }),
  };
}

/** A responders entry that names a group rather than a principal. */
export const GROUP_PREFIX = 'group:';

/**
 * Whether `caller` is among `responders`: by principal, or by a `group:NAME` entry. Principals and
 * groups are separate namespaces: a `group:` entry is matched only against the caller's groups, so
 * a principal whose ID happens to read `group:finance` (a JWT subject, say) never acts as the group.
 */
export function isAllowedResponder(responders: readonly string[], caller: Caller): boolean {
  return responders.some((entry) =>
    entry.startsWith(GROUP_PREFIX) ? caller.groups.includes(entry.slice(GROUP_PREFIX.length)) : entry === caller.id,
  );
}

/** Who may answer an open question, as a task's metadata and its summary memo show it. */
type QuestionAudience = Pick<Question, 'responders' | 'deputies'>;

/**
 * What decides who may see a task: the fields of the task's own metadata (`Task.metadata`, and the
 * summary memo that visibility keeps of it), read the same way wherever the task was read.
 */
export interface TaskAudience {
  owner?: string;
  /** The open question (the earliest, when several are open). */
  pendingQuestion?: QuestionAudience;
  /** Every open question, when several are. */
  pendingQuestions?: readonly QuestionAudience[];
  participants?: string[];
}

/**
 * Who may see a task: everyone without authentication or on a task without an owner; else its
 * owner, who may answer one of its open questions (their deputies included, whatever their
 * window), and who answered one before.
 */
export function mayAccessTask(audience: TaskAudience, caller: Caller | undefined): boolean {
  const { owner, pendingQuestion, pendingQuestions, participants } = audience;
  if (!caller || !owner || owner === caller.id || participants?.includes(caller.id)) return true;
  return (pendingQuestions ?? (pendingQuestion ? [pendingQuestion] : [])).some(
    (question) =>
      deputiesOf(question, caller.id).length > 0 ||
      (question.responders !== undefined && isAllowedResponder(question.responders, caller)),
  );
}

/** Everything a run hands to its continuation. */
interface CarriedTaskState {
  task: TaskSnapshot;
  journal: JournalEntry[];
}

export interface TaskSnapshot {
  id: string;
  contextId: string;
  agent: string;
  status: WireTaskStatus;
  history: NonNullable<WireTask['history']>;
  artifacts: WireArtifact[];
  timeline: TimelineEntry[];
  events: TaskEvent[];
  appliedMessageKeys: string[];
  /** The open questions, in the order asked (task-record.ts). */
  questions?: Question[];
  /** The one open question, as runs before `questions` carried it (read once, on restore). */
  pending?: PendingQuestion;
  /** Set when the agent answered with a direct message instead of a task. */
  directMessage?: boolean;
  /** Who sent the first message (the agent sees it again after continue-as-new). */
  firstResponder?: string;
  /**
   * Whether the task's answers are signed into receipts, as its start input asked (ReceiptRequest).
   * Absent on a task carried over from a run before release 15, which signed every answer: so does its continuation.
   */
  receipts?: boolean;
  /** The authenticated principal that created the task; only it (and who may answer its question) sees it. */
  owner?: string;
  /** Authenticated principals other than the owner who answered a question: they keep seeing the task. */
  participants?: string[];
  /** Webhooks and what each has yet to receive; absent on tasks that never had one. */
  pushConfigs?: StoredPushConfig[];
  /** LLM agents' model spend (metadata.usage); absent until the first model call. */
  usage?: TaskUsage;
  /** The remote A2A tasks this task delegated to (metadata.delegations), in call order. */
  delegations?: Delegation[];
  /** Notices to approvers (metadata.approverNotifications); absent on tasks that never notified anyone. */
  approvals?: ApprovalNoticesRecord;
  /** Every escalation of the task's questions (metadata.escalations), by question id; absent until one. */
  escalations?: Array<Escalation & { question: string }>;
  /** Every vote on the task's quorum questions (metadata.votes), by question id; absent until one. */
  votes?: Array<Vote & { question: string }>;
}

/** A remote A2A task this task delegated to (ctx.callAgent), as last seen. */
export interface Delegation {
  /** The remote agent's name (from its card) and where it was reached. */
  agent: string;
  url: string;
  /** Absent until the remote agent answered with a task (or when it answered with a message only). */
  taskId?: string;
  state: TaskStateName;
  /** Why some of the remote task's artifacts did not come back (RemoteAgentResult.artifactsOmitted). */
  artifactsOmitted?: string;
}

/** One recorded effect of agent code (see agent-journal.ts). */
export interface JournalEntry {
  kind: string;
  result?: unknown;
  /** False while the step was still under way when the run continued as new. */
  done?: boolean;
}

/** An agent's activity failed and Temporal will try it again (the worker says so; the error stays in its log). */
export interface ActivityRetrying {
  activityType: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
}

/**
 * Where a worker's code parts from a task's history, in the user's words, for the workflow task it
 * failed for nondeterminism (worker/divergence-reports.ts): Temporal's own message cannot name, for
 * instance, an activity inserted before a question. Sent as a signal because a blocked workflow can
 * write nothing itself, while Temporal records a signal in its history all the same: the Temporal UI
 * shows it there, and the gateway's blocked marker reads it. The workflow has no handler for it (the
 * SDK keeps it unread), so a reset that applies it again to the new run changes nothing. After a
 * signal Temporal counts the workflow task's next attempt as a first one: it fails again (one more
 * WorkflowTaskFailed in history), and the worker, knowing it said it, does not signal again.
 */
export const DIVERGENCE_SIGNAL = 'a2a-temporal.divergence';

export interface DivergenceReport {
  /** The divergence in words ("the new code runs activity `audit` before the question `Approve?`; ..."). */
  reason: string;
  /** The build whose code diverges (the SDK's bundle hash or the Worker Versioning build ID): the words are its own. */
  buildId?: string;
}

export const sendMessageUpdate = defineUpdate<MessageAccepted, [IncomingMessage]>('message');
export const activityRetryingSignal = defineSignal<[ActivityRetrying]>('activityRetrying');
export const cancelTaskUpdate = defineUpdate<WireTask, [CancelRequest]>('cancel');
export const completeAuthUpdate = defineUpdate<WireTask, [AuthCompletion]>('completeAuth');
export const taskQuery = defineQuery<WireTask, [TaskQueryArgs?]>('task');
export const eventsQuery = defineQuery<EventsSince, [number]>('eventsSince');
/** The task and the sequence number of its last event, read at one instant: where a subscriber starts. */
export const snapshotQuery = defineQuery<TaskSnapshotView, [TaskQueryArgs]>('snapshot');

export interface TaskSnapshotView {
  task: WireTask;
  lastSeq: number;
}

/** Memo key holding the final task when the workflow ends failed or canceled (it has no result then). */
export const FINAL_TASK_MEMO = 'a2aFinalTask';
/**
 * The task without history and artifacts (status message text capped), kept in a memo so ListTasks
 * answers a page from visibility alone. It holds the task's audience too (TaskAudience: owner, open
 * questions' responders and deputies, participants): the gateway reads it in the describe it makes
 * anyway and turns away a caller who may not see the task before it queries the workflow, so a
 * stranger's TaskNotFound costs what a missing task's does.
 */
export const SUMMARY_MEMO = 'a2aSummary';
/** Memo key holding the last events (TaskEvent[]) of a closed task, for streams open at its end. */
export const FINAL_EVENTS_MEMO = 'a2aFinalEvents';

const TASK_WORKFLOW_ID_PREFIX = 'a2a-task-';

/** Workflow ID of the task with this A2A task ID. */
export function workflowIdForTask(taskId: string): string {
  return `${TASK_WORKFLOW_ID_PREFIX}${taskId}`;
}

/** The A2A task ID of a task workflow's ID; undefined for any other workflow. */
export function taskIdOfWorkflow(workflowId: string): string | undefined {
  return workflowId.startsWith(TASK_WORKFLOW_ID_PREFIX) ? workflowId.slice(TASK_WORKFLOW_ID_PREFIX.length) : undefined;
}

export const DEFAULT_TASK_QUEUE = 'a2a-temporal';
