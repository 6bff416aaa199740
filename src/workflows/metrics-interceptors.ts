/**
 * Workflow interceptors the agents plugin bundles into every worker: tasks started and settled,
 * by agent and final A2A state, on Temporal's metric meter, so the worker's Prometheus endpoint
 * shows them. The gateway could not count these: a task also settles by its deadline, an operator
 * or a crash, with no A2A request in sight. Metrics are no workflow commands: histories stay the
 * same, and replays emit nothing.
 */
import {
  ContinueAsNew,
  metricMeter,
  workflowInfo,
  type Next,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
} from '@temporalio/workflow';
import { TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { isTaskStateName, isTerminal } from '../protocol/states.js';
import { TASK_METRICS } from '../protocol/telemetry.js';
import { CLOSED_TASK_PUSH_CONFIGS_WORKFLOW } from '../protocol/push.js';

class TaskMetrics implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const info = workflowInfo();
    const agent = info.workflowType;
    // The holder of a closed task's push configs is no task.
    if (agent === CLOSED_TASK_PUSH_CONFIGS_WORKFLOW) return next(input);
    // A run after continue-as-new carries on a task that has already started.
    if (!info.continuedFromExecutionRunId) {
      metricMeter.createCounter(TASK_METRICS.started, undefined, 'A2A tasks started').add(1, { agent });
    }
    let continued = false;
    try {
      return await next(input);
    } catch (error) {
      continued = error instanceof ContinueAsNew;
      throw error;
    } finally {
      // The search attribute holds the A2A outcome, however the workflow maps it to a Temporal status.
      // A non-terminal state here is a workflow task that failed and will be retried: not an ending.
      const state = workflowInfo().typedSearchAttributes.get(TASK_STATE_ATTRIBUTE);
      if (!continued && state && isTaskStateName(state) && isTerminal(state)) {
        metricMeter
          .createCounter(TASK_METRICS.settled, undefined, 'A2A tasks settled in a terminal state')
          .add(1, { agent, state });
      }
    }
  }
}

export const interceptors = (): WorkflowInterceptors => ({ inbound: [new TaskMetrics()] });
