/**
 * A question's escalations (docs/approval-policies.md, Escalation), from release 13 (task-patches.ts):
 * each rule of `ctx.ask`'s `escalate` becomes a planned escalation in the question (when, to whom),
 * and one durable timer at a time waits for the next while the question waits. When it fires, the
 * question's responders widen (or move) to the rule's, the new approvers are told, and the task
 * keeps the escalation (`metadata.escalations`); from release 17 the deputies of the approvers it adds
 * come with it (question-deputies.ts). The plan lives in the question, which the task
 * record carries across continue-as-new: a resumed question re-arms the timer of what is left.
 */
import { CancellationScope, condition } from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { isApprovalChannel, APPROVAL_CHANNELS, type ApprovalChannel } from '../protocol/approvals.js';
import type { Escalation, PlannedEscalation } from '../protocol/question.js';
import { msToNumber } from '../protocol/temporal-sdk-compat.js';
import { uiText } from '../protocol/ui-text.js';
import { AgentFailure, type EscalationRule } from './agent-api.js';
import { questionEscalated } from './approval-metrics.js';
import type { ReplyWait } from './reply-wait.js';
import { deputiesAfterEscalation, type EscalationDeputies } from './question-deputies.js';
import { escalatesQuestions, resolvesEscalationDeputies } from './task-patches.js';
import type { TaskRuntime } from './task-runtime.js';

/** The escalations `rules` plan for a question asked at `askedAt`, earliest first; none before release 13. */
export function plannedEscalations(
  rules: readonly EscalationRule[] | undefined,
  askedAt: string,
): { escalate?: PlannedEscalation[] } {
  if (!rules?.length || !escalatesQuestions()) return {};
  const planned = rules.map((rule) => {
    const after = durationMs(rule.after);
    if (after === undefined) throw new AgentFailure(`ask: escalate after "${String(rule.after)}" is not a duration`);
    if (!Array.isArray(rule.to) || rule.to.length === 0 || rule.to.some((to) => typeof to !== 'string' || !to)) {
      throw new AgentFailure('ask: escalate needs `to`: the principals or groups it escalates to');
    }
    const mode = rule.mode ?? 'widen';
    if (mode !== 'widen' && mode !== 'move')
      throw new AgentFailure(`ask: escalate mode "${String(mode)}" is not widen or move`);
    for (const name of rule.notify ?? []) {
      if (!isApprovalChannel(name)) {
        throw new AgentFailure(
          `ask: unknown escalate notify channel "${name}" (known: ${APPROVAL_CHANNELS.join(', ')})`,
        );
      }
    }
    const at = new Date(Date.parse(askedAt) + after).toISOString();
    return { at, to: [...rule.to], mode, ...(rule.notify && { notify: [...rule.notify] }) };
  });
  return { escalate: planned.sort((a, b) => Date.parse(a.at) - Date.parse(b.at)) };
}

/**
 * Carries out `wait`'s planned escalations as their times come, while it waits (`waiting`). Not
 * cancellable: a canceled task ends the wait, which ends the watch.
 */
export function watchEscalations(runtime: TaskRuntime, wait: ReplyWait, waiting: () => boolean): void {
  if (!wait.question.escalate?.length) return;
  void CancellationScope.nonCancellable(async () => {
    for (let next = wait.question.escalate?.[0]; next; next = wait.question.escalate?.[0]) {
      const remaining = Math.max(Date.parse(next.at) - Date.now(), 1);
      const summary = `escalation to ${uiText(next.to.join(', ').slice(0, 60))}`;
      if (await condition(() => !waiting(), remaining, { summary })) return;
      // Release 17: the deputies of those it adds are read first (an activity), and the escalation
      // happens with them, unless the question closed meanwhile. Until then it waits for those it
      // waited for; a run continued as new meanwhile finds the escalation still planned, and reads them again.
      const deputies = resolvesEscalationDeputies()
        ? await deputiesAfterEscalation(wait.question, next, runtime.record.requester)
        : undefined;
      if (!waiting()) return;
      escalate(runtime, wait, next, deputies);
    }
  });
}

/**
 * The question's responders widen to (or move to) `step.to`, with `after`'s deputies (release 17);
 * the task keeps it, and the new approvers and their deputies are told.
 */
function escalate(
  runtime: TaskRuntime,
  wait: ReplyWait,
  step: PlannedEscalation,
  after: EscalationDeputies | undefined,
): void {
  const { question } = wait;
  // Counted by the group it waited for.
  questionEscalated(question);
  const { owner } = runtime.record;
  const from = question.responders ?? (owner ? [owner] : []);
  // Widening a question anyone may answer (no responders, no owner) leaves it so.
  const widened = from.length > 0 ? [...new Set([...from, ...step.to])] : undefined;
  const responders = step.mode === 'move' ? [...step.to] : widened;
  const escalation: Escalation = {
    at: new Date().toISOString(),
    to: step.to,
    mode: step.mode,
    from,
    ...(after?.directoryHash && { directoryHash: after.directoryHash }),
  };
  if (responders) question.responders = responders;
  if (after?.deputies.length) question.deputies = after.deputies;
  else if (after) delete question.deputies;
  question.escalated = [...(question.escalated ?? []), escalation];
  const rest = question.escalate?.slice(1) ?? [];
  if (rest.length > 0) question.escalate = rest;
  else delete question.escalate;
  runtime.record.escalated(question, escalation);
  runtime.approvers.questionEscalated(wait, escalation, step.notify as ApprovalChannel[] | undefined);
  runtime.publish();
}

function durationMs(duration: Duration): number | undefined {
  try {
    const ms = msToNumber(duration);
    return Number.isFinite(ms) && ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
}
