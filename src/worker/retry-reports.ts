/**
 * Tells a task when one of its agent's activities failed and will be tried again, so that the task
 * says so within seconds instead of looking `working` while Temporal retries (a bug in an activity,
 * a service that is down). Only the activity's name and attempt travel: the error itself may hold
 * secrets and stays in the worker's log and the workflow's history.
 */
import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { activityRetryingSignal, taskIdOfWorkflow } from '../protocol/contract.js';
import { PUSH_ACTIVITY } from '../protocol/push.js';

/**
 * Which failed attempts the task hears of: 1, 2, 4, 8, ... Each report is a signal and a status
 * change in the task's history, and activities retry forever by default: reporting every attempt
 * would grow a task's history until Temporal terminates it (500 attempts: thousands of events).
 */
function isReportedAttempt(attempt: number): boolean {
  return attempt >= 1 && Number.isInteger(attempt) && (attempt & (attempt - 1)) === 0;
}

/** Push deliveries report their failures in the task themselves (src/workflows/outbox.ts). */
const REPORTED_ELSEWHERE = new Set([PUSH_ACTIVITY]);

export const reportRetries: ActivityInterceptorsFactory = (context) => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (error) {
        const { workflowExecution, activityType, attempt } = context.info;
        if (workflowExecution && taskIdOfWorkflow(workflowExecution.workflowId) && willRetry(context, error)) {
          if (!REPORTED_ELSEWHERE.has(activityType) && isReportedAttempt(attempt)) {
            // Best effort, and never in the way of the failure Temporal is to record.
            void context.client.workflow
              .getHandle(workflowExecution.workflowId, workflowExecution.runId)
              .signal(activityRetryingSignal, { activityType, attempt })
              .catch(() => {});
          }
        }
        throw error;
      }
    },
  },
});

function willRetry(context: Context, error: unknown): boolean {
  if (context.cancellationSignal.aborted) return false;
  if (error instanceof ApplicationFailure && error.nonRetryable) return false;
  const maximumAttempts = context.info.retryPolicy?.maximumAttempts ?? 0;
  return maximumAttempts === 0 || context.info.attempt < maximumAttempts;
}
