/**
 * The task workflow's patches (Temporal's `patched()`), in one place. Each `patched()` a new
 * workflow passes writes a marker and a `TemporalChangeVersion` search attribute upsert to its
 * history: two events per patch, in the same workflow task as the work it guards. A workflow that
 * starts on a release (RELEASES) records that one marker instead, at its start, and takes the new
 * path of every patch before it (PATCH) without a marker of its own; it also has
 * each activation's memo and search attribute upserts written as one of each (coalesced-upserts.ts;
 * a workflow task is usually one activation). Histories recorded before replay exactly as they
 * were: without the release marker, every patch is asked as before.
 *
 * PATCH is closed: a later change is guarded by a later release marker (RELEASES), never added to
 * PATCH (a workflow with an older marker did not run it, and would take it on replay). A workflow
 * records only the newest marker; replay asks for each, newest first, and finds the one its history
 * holds. A release takes the new path of every release before it.
 * Agent code should not use local activities: Core's replay may resolve one in the activation of
 * the workflow task's other jobs, and a merged upsert would then not match the history.
 * Records the marker only where the coalescing interceptor is bundled (it calls
 * `coalescingInstalled`), so a bundle without it keeps writing what it replays.
 *
 * Module state is per workflow: Temporal's sandbox gives each workflow its own module instances.
 */
import { patched } from '@temporalio/workflow';

/** The patches folded into the release marker. */
export const PATCH = {
  /** Histories that deliver push notifications (workflows before it never had a config). */
  pushNotifications: 'push-notifications',
  /** Deliveries try once, record a failure in the task, then retry for the day. */
  pushFailuresShown: 'push-failures-shown',
  /** A config deleted while one of its notifications was under way. */
  pushConfigReplaced: 'push-config-replaced',
  /** A message can wait for the task to settle, and is answered with it. */
  settledAnswer: 'settled-answer',
  /** The summary memo that ListTasks reads. */
  summaryMemo: 'summary-memo',
  /** The final events memo of a closed workflow. */
  finalEventsMemo: 'final-events-memo',
  /** Temporal's status tells the A2A outcome (FAILED, CANCELED); before, every ending was COMPLETED. */
  temporalStatusForOutcome: 'temporal-status-for-outcome',
} as const;

type FoldedPatch = (typeof PATCH)[keyof typeof PATCH];

/** The release markers, oldest first; a new workflow records the last. */
const RELEASES = [
  // 1: every PATCH, and each activation's upserts coalesced.
  'one-marker-coalesced-upserts',
  // 2: a sender waiting for the task to settle is woken by the transition itself, and the watch for
  // continue-as-new starts when the agent first waits for a reply; each used to be a condition that
  // Temporal evaluates in a round of its own after the agent's work (see task-workflow.ts).
  'settle-without-condition-rounds',
  // 3: the A2AResponders search attribute (who may answer the waiting question). Only tasks that
  // start on it write it: a task of an earlier release never needs the attribute registered.
  'responders-search-attribute',
  // 4: the project-wide notify default (a2a-temporal.config.ts `approvals`) applies to questions;
  // a task of an earlier release never schedules approver notices it did not ask for.
  'approver-notifications',
  // 5: a question's Slack messages are updated (chat.update) when it is answered or expires, the one
  // who answered included; a task of an earlier release posts a separate note to the others instead.
  'approval-notice-updates',
  // 6: a task that ends canceled or failed while its question waits tells the approvers who were
  // told of it (a note by each channel, Slack's messages updated), who keep seeing the task.
  'approval-notices-on-task-end',
  // 7: while a remote agent's question waits here, its task is still followed: ended there, the
  // question ends here (remote-agent-call.ts); before, that was seen only when the answer was sent.
  'remote-question-watched',
  // 8: an LLM agent's maxSteps is a budget of model calls, asking "continue" or "stop" like
  // maxModelCalls (which replaces it); a task of an earlier release fails at it.
  'llm-step-limit-asks',
  // 9: the A2AAskedAt search attribute (when the waiting question was asked). Only tasks that start
  // on it write it: a task of an earlier release never needs the attribute registered.
  'asked-at-search-attribute',
  // 10: each answer that decides a question gets a signed receipt (decision-receipts.ts), made by an
  // activity before the agent goes on; a task of an earlier release schedules no such activity.
  'signed-receipts',
  // 11: a question's deputies come from the approver directory when it opens (an activity; the
  // directory's hash kept in the question), may answer for their approver within their window, and
  // are told of it; a task of an earlier release schedules no such activity.
  'approval-deputies',
  // 12: an LLM agent runs the tool calls of one model answer at once (the free ones as activities side
  // by side, every approval asked together); a task of an earlier release runs them one by one.
  'several-questions',
  // 13: a question may escalate (question-escalation.ts): a durable timer per planned escalation
  // widens or moves its responders and tells the new ones; a task of an earlier release plans none.
  'question-escalation',
  // 14: a status update while questions wait keeps the task input-required
  // with them (task-runtime.ts `changeState`); a task of an earlier release goes working and hides them.
  'status-keeps-questions',
  // 15: only a task whose starter has the receipt signing key (its input's `receipts`) signs its
  // answers; a task of an earlier release schedules the signing activity for each, keyed or not.
  'receipts-when-keyed',
  // 16: a question may need a quorum of votes (question-quorum.ts): it stays open, keeping each vote,
  // until enough distinct approvers approve or the denies reject; a task of an earlier release ignores it.
  'approval-quorum',
  // 17: an escalation first reads the deputies of those it adds from the approver directory (the
  // opening's activity; the directory's hash kept in the escalation), who are told and may answer
  // within their window; a move drops the deputies of those it leaves. A task of an earlier release
  // schedules no such activity.
  'escalation-deputies',
  // 18: a quorum question's reminders skip those who voted (or whose deputy did), and a deputy's
  // approval counts toward a rule of the group their principal was reached through (the deputies
  // activity says which); a task of an earlier release reminds every approver, and counts a deputy's
  // approval toward a rule without group only.
  'quorum-voters',
] as const;

/** The release this workflow started on: 0 before the first marker, else a position in RELEASES plus one. */
let release = 0;
let coalescing = false;

/** Called by the coalescing interceptor when Temporal builds this workflow's interceptors. */
export function coalescingInstalled(): void {
  coalescing = true;
}

/** Called first thing in each run, before any handler runs. */
export function recordRelease(): void {
  if (!coalescing) return;
  for (let index = RELEASES.length - 1; index >= 0; index--) {
    if (patched(RELEASES[index]!)) {
      release = index + 1;
      return;
    }
  }
}

/** Whether this workflow takes the new path of a patch folded into the release marker. */
export function hasPatch(patchId: FoldedPatch): boolean {
  return release >= 1 || patched(patchId);
}

/** Whether each activation's memo and search attribute upserts are written as one of each. */
export function coalescesUpserts(): boolean {
  return release >= 1;
}

/** Release 2: settled senders and the continue-as-new watch need no condition rounds of their own. */
export function settlesWithoutConditionRounds(): boolean {
  return release >= 2;
}

/** Release 3: the A2AResponders search attribute follows the pending question. */
export function recordsResponders(): boolean {
  return release >= 3;
}

/** Release 4: questions without `notify` of their own take the project's default channels. */
export function notifiesByDefault(): boolean {
  return release >= 4;
}

/** Release 5: the posted Slack messages of a question are updated once it is answered or expires. */
export function updatesApprovalNotices(): boolean {
  return release >= 5;
}

/** Release 6: approvers told of a question hear that the task was canceled or failed while it waited. */
export function tellsApproversTaskEnded(): boolean {
  return release >= 6;
}

/** Release 7: a remote agent's question waits here while its task is still followed there. */
export function watchesRemoteQuestions(): boolean {
  return release >= 7;
}

/** Release 8: an LLM agent reaching its maxSteps asks whether to go on instead of failing. */
export function asksAtStepLimit(): boolean {
  return release >= 8;
}

/** Release 9: the A2AAskedAt search attribute follows the pending question. */
export function recordsAskedAt(): boolean {
  return release >= 9;
}

/** Release 10: an answer that decides a question is signed into a receipt the task carries. */
export function signsReceipts(): boolean {
  return release >= 10;
}

/** Release 11: a question's deputies are resolved when it opens and may answer within their window. */
export function resolvesDeputies(): boolean {
  return release >= 11;
}

/** Release 12: an LLM agent's tool calls of one answer run at once, their approvals asked together. */
export function asksSeveralQuestions(): boolean {
  return release >= 12;
}

/** Release 13: a question's escalations are planned, and carried out by durable timers. */
export function escalatesQuestions(): boolean {
  return release >= 13;
}

/** Release 14: a status update while questions wait keeps them showing. */
export function keepsQuestionsOnStatus(): boolean {
  return release >= 14;
}

/** Release 15: answers are signed only when the task's start input asked for receipts. */
export function signsReceiptsWhenKeyed(): boolean {
  return release >= 15;
}

/** Release 16: a question may be decided by a quorum of votes. */
export function asksQuorum(): boolean {
  return release >= 16;
}

/** Release 17: an escalation resolves the deputies of those it adds, who may answer within their window. */
export function resolvesEscalationDeputies(): boolean {
  return release >= 17;
}

/** Release 18: a quorum question's voters get no more reminders; a deputy's approval counts for their principal's group. */
export function sparesQuorumVoters(): boolean {
  return release >= 18;
}
