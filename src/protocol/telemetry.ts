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
