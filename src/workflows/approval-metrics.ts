/**
 * Approval SLA metrics of the task workflow (docs/observability.md): how long a question waited for
 * its answer, how many expired and how many escalated, by agent and group, on Temporal's metric meter (the worker's
 * Prometheus endpoint). No workflow commands: histories stay the same, and replays emit nothing.
 */
import { metricMeter, workflowInfo } from '@temporalio/workflow';
import type { PendingQuestion } from '../protocol/question.js';
import { APPROVAL_METRICS, approvalGroupLabel } from '../protocol/telemetry.js';

function labels(question: PendingQuestion): { agent: string; group: string } {
  return { agent: workflowInfo().workflowType, group: approvalGroupLabel(question.responders) };
}

/** A person answered `question` (the workflow's clock: when the answer was accepted). Input questions only: approvals. */
export function questionAnswered(question: PendingQuestion): void {
  if (question.kind !== 'input') return;
  const seconds = Math.max(0, (Date.now() - Date.parse(question.askedAt)) / 1000);
  metricMeter
    .createHistogram(
      APPROVAL_METRICS.decision,
      'float',
      'seconds',
      'Time from a question to its answer, by agent and group',
    )
    .record(seconds, labels(question));
}

/** Nobody answered `question` before its deadline. */
export function questionExpired(question: PendingQuestion): void {
  if (question.kind !== 'input') return;
  metricMeter
    .createCounter(
      APPROVAL_METRICS.expired,
      undefined,
      'Questions whose deadline passed unanswered, by agent and group',
    )
    .add(1, labels(question));
}

/** `question` escalated: nobody answered in time. */
export function questionEscalated(question: PendingQuestion): void {
  if (question.kind !== 'input') return;
  metricMeter
    .createCounter(
      APPROVAL_METRICS.escalated,
      undefined,
      'Questions escalated because nobody answered in time, by agent and group',
    )
    .add(1, labels(question));
}
