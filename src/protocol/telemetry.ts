/**
 * The names traces and metrics use for A2A things, shared by the gateway, the worker and the
 * workflow sandbox (pure: no Node, no OpenTelemetry).
 */
import { taskIdOfWorkflow } from './contract.js';

/** Span attributes: one vocabulary on gateway, workflow and activity spans, so a trace query finds them all. */
export const SPAN_ATTRIBUTES = {
  taskId: 'a2a.task_id',
  contextId: 'a2a.context_id',
  agent: 'a2a.agent',
  method: 'a2a.method',
  transport: 'a2a.transport',
  outcome: 'a2a.outcome',
} as const;

/** The Temporal header in which a traced workflow tells its activities the task's context ID (for their spans). */
export const CONTEXT_ID_HEADER = 'a2a-context-id';

/** The A2A attributes of a task's workflow (or of an activity it runs), as far as they are known. */
export function taskSpanAttributes(task: {
  workflowId: string;
  agent: string;
  contextId?: string | undefined;
}): Record<string, string> {
  const taskId = taskIdOfWorkflow(task.workflowId);
  return {
    ...(taskId && { [SPAN_ATTRIBUTES.taskId]: taskId }),
    [SPAN_ATTRIBUTES.agent]: task.agent,
    ...(task.contextId && { [SPAN_ATTRIBUTES.contextId]: task.contextId }),
  };
}

/** Counters the task workflow adds to the worker's Prometheus metrics (through Temporal's metric meter). */
export const TASK_METRICS = {
  started: 'a2a_tasks_started',
  settled: 'a2a_tasks_settled',
} as const;

/** The counter of blocked tasks a starting worker reset (src/worker/unblock-tasks.ts; `_total` appended there). */
export const UNBLOCK_METRIC = 'a2a_tasks_unblocked';

/** Counters the model activity adds to the worker's Prometheus metrics (`_total` appended there). */
export const MODEL_METRICS = {
  tokens: 'a2a_model_tokens',
  calls: 'a2a_model_calls',
} as const;

/**
 * Approval SLA metrics (docs/observability.md). The worker's, from the task workflow (exact: a
 * replay emits nothing): time from a question to its answer, and questions whose deadline passed
 * (`_seconds` and `_total` appended by the exporter). The gateway's: time to the first view of a
 * question in the inbox, and questions past half their deadline.
 */
export const APPROVAL_METRICS = {
  decision: 'a2a_approval_decision',
  expired: 'a2a_approvals_expired',
  escalated: 'a2a_approval_escalations',
  firstView: 'a2a_approval_first_view_seconds',
  pastHalfDeadline: 'a2a_approvals_past_half_deadline',
} as const;

/** People answer in minutes to days: buckets from a minute to a week, in seconds. */
export const APPROVAL_BUCKETS_SECONDS = [60, 300, 900, 1800, 3600, 4 * 3600, 8 * 3600, 86400, 3 * 86400, 7 * 86400];

/**
 * The `group` label of a question's approval metrics: the groups among its responders (sorted, comma
 * separated), `none` when it names principals only. Principals are no label: they are unbounded.
 */
export function approvalGroupLabel(responders: readonly string[] | undefined): string {
  const groups = (responders ?? []).filter((entry) => entry.startsWith('group:')).map((entry) => entry.slice(6));
  return groups.length > 0 ? [...new Set(groups)].sort().join(',') : 'none';
}
