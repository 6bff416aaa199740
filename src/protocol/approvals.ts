/**
 * Notifying approvers (docs/channels.md): what the task workflow and the worker's channel
 * activities agree on. Pure: the workflow sandbox and Node code import it alike. The workflow
 * decides who hears what and when; the activities (src/channels) look up addresses and send, so
 * addresses never enter workflow history.
 */
import type { QuestionView } from './question.js';

/** The channels a question can reach its approvers by. */
export const APPROVAL_CHANNELS = ['email', 'webhook', 'slack'] as const;
/** A channel a question can reach its approvers by: one of {@link APPROVAL_CHANNELS}. */
export type ApprovalChannel = (typeof APPROVAL_CHANNELS)[number];

export function isApprovalChannel(value: unknown): value is ApprovalChannel {
  return (APPROVAL_CHANNELS as readonly unknown[]).includes(value);
}

/** Resolves a question's responders (principals, `group:NAME`) to the principals to notify. */
export const RESOLVE_APPROVERS_ACTIVITY = 'a2aResolveApprovers';
/** Sends one notice to one approver by one channel. */
export const NOTIFY_APPROVER_ACTIVITY = 'a2aNotifyApprover';
/** The Slack buttons' action IDs (src/channels/slack.ts) and the answer each gives (src/channels/slack-interactions.ts). */
export const SLACK_APPROVE_ACTION = 'a2a_approve';
export const SLACK_DENY_ACTION = 'a2a_deny';
export const SLACK_ANSWER_ACTIONS: Readonly<Record<string, string>> = {
  [SLACK_APPROVE_ACTION]: 'approve',
  [SLACK_DENY_ACTION]: 'deny',
};

/** The failure type of a notice that cannot be sent however often it is tried (no address, no channel set up). */
export const NOTICE_REFUSED = 'ApproverNoticeRefused';

export interface ResolveApproversInput {
  /** The question's responders; absent: `fallback` (the owner) answers. */
  responders?: string[];
  fallback?: string;
  /** Not notified (a requester who may not approve their own request). */
  exclude?: string;
}

export interface ResolvedApprovers {
  /** Principals, each once, in the order the responders name them (groups expanded in place). */
  approvers: string[];
  /** Responders the directory does not know (a group without members there). */
  unknown: string[];
}

/** What a notice tells its approver: a question, a reminder, or how the question ended (a note). */
export type NoticeKind = 'ask' | 'reminder' | NoteKind;
/** The notes: the question answered or expired, or the task canceled or failed while it waited (release 6). */
export type NoteKind = 'answered' | 'expired' | 'canceled' | 'failed';

export function isNote(kind: NoticeKind): kind is NoteKind {
  return kind !== 'ask' && kind !== 'reminder';
}

/** One notice, as the channel activity gets it: everything to write the message, no address. */
/** One notice to one approver by one channel: what an `EmailSender` (and every channel) sends. */
export interface ApproverNotice {
  /** Idempotency key: `<taskId>:<question seq>:<approver>:<channel>:<kind>[<n>]`; the email's Message-ID and the webhook's X-A2A-Notification-Id derive from it. */
  id: string;
  /** What it tells: the question, a reminder, or how the question ended. */
  kind: NoticeKind;
  /** The channel it goes by. */
  channel: ApprovalChannel;
  /** The principal it goes to (the channel looks up the address). */
  approver: string;
  /** The task whose question it is about. */
  taskId: string;
  /** The task's agent. */
  agent: string;
  /** The question. */
  question: string;
  /** The first words of the request that started the task. */
  request?: string;
  /** When the question was asked, ISO 8601. */
  askedAt: string;
  /** The question's id: an answer from the notice names it (a Slack button's, an email link's). */
  questionId?: string;
  /** The question's deadline, ISO 8601, when it has one. */
  deadline?: string;
  /** Who answered (kind 'answered'). */
  answeredBy?: string;
  /** A quorum question's decision, who gave it (kind 'answered'): "Approved by alice and bob (2 of 2 approvals)". */
  decision?: string;
  /** The approver this one is told of the question for, as their deputy. */
  actingFor?: string;
  /** A quorum question's tally when the notice goes (ask, reminder): "1 of 2 approvals; still needed: …". */
  approvals?: string;
  /** The task's last status message (kinds 'canceled' and 'failed'): why it ended. */
  outcome?: string;
  /**
   * A note (answered, expired, canceled, failed) given by updating the messages that asked, rather than by a new
   * message: the Slack channel's chat.update of the messages its chat.postMessage answered with.
   */
  update?: PostedMessage[];
}

/** A message a channel posted and can change later: a Slack conversation and the message's `ts`. */
export interface PostedMessage {
  /** The Slack conversation's ID. */
  channel: string;
  /** The message's timestamp, Slack's ID of it. */
  ts: string;
}

/** What a sent notice says of its recipient: the address masked (`a***@example.com`), never in clear. */
export interface NoticeReceipt {
  to: string;
  /** The message posted, when the channel can update it (Slack's Web API). */
  message?: PostedMessage;
}

/** A notice as the task records it (`metadata.approverNotifications`). */
export interface NoticeState {
  id: string;
  question: number;
  kind: NoticeKind;
  approver: string;
  channel: ApprovalChannel;
  state: 'pending' | 'sent' | 'failed' | 'skipped';
  /** The masked address it went to. */
  to?: string;
  /** When it was sent, failed or skipped (or last failed, while still pending). */
  at?: string;
  /** Why it failed (or why its retries continue, while pending). */
  reason?: string;
  answeredBy?: string;
  /** A quorum question's decision in words, who gave it (kind 'answered'). */
  decision?: string;
  /** Told as the deputy of this approver. */
  actingFor?: string;
  /** For a note on a canceled or failed task: its last status message. */
  outcome?: string;
  /** For a note on a closed question: the question, since the next may be asked before it is sent. */
  about?: Pick<QuestionView, 'prompt' | 'askedAt' | 'deadline' | 'id'>;
}

/**
 * The question whose approvers are being notified, as the task carries it across continue-as-new:
 * what the notices need of the question (its id absent for questions of runs before ids; its
 * deputies, release 12, told as their approvers are; a quorum's tally, release 16, kept as the votes
 * come, so that its reminders say where it stands), and the notices' own bookkeeping.
 */
export interface NotifiedQuestion extends Pick<
  QuestionView,
  'id' | 'prompt' | 'askedAt' | 'deadline' | 'responders' | 'notByRequester' | 'deputies' | 'quorum'
> {
  /** The sequence number of its input-required event: the question's ID within the task's notices. */
  seq: number;
  channels: ApprovalChannel[];
  open: boolean;
  /**
   * Closed neither answered nor expired: the agent stopped waiting (canceled, a remote call's
   * deadline). Those told of it hear how the task ends (release 6), unless another question comes first.
   */
  withdrawn?: boolean;
  /** Resolved once, by an activity; absent until then. */
  approvers?: string[];
  /** Reminder times not yet reached (ISO), earliest first. */
  reminders: string[];
  /** How many reminders were sent: the next one's number. */
  remindersSent: number;
}

/** What the task keeps of its approver notices (in its snapshot, across continue-as-new). */
export interface ApprovalNoticesRecord {
  /** The questions being notified: those open, and those closed since the last was asked. */
  questions?: NotifiedQuestion[];
  /** The one question of a run before several (moved into `questions` on resume). */
  question?: NotifiedQuestion;
  notices: NoticeState[];
  /**
   * The Slack messages that asked a question (release 5, task-patches.ts), updated by its note
   * (answered, expired; canceled or failed from release 6); kept out of the task's metadata (which shows `notices`).
   */
  posted?: Array<PostedMessage & { question: number; approver: string }>;
}

/**
 * `'1 day before'` (relative to the question's deadline) as the duration before it: `'1 day'`.
 * Undefined when the text is not of that form.
 */
export function reminderOffset(text: string): string | undefined {
  const match = /^\s*(.+?)\s+before\s*$/i.exec(text);
  return match?.[1];
}
