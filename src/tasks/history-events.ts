/** Events of a workflow's history as the gateway reads them with long-polls (events.ts, change-bus.ts). */
import type { Client } from '@temporalio/client';

export type HistoryEvent = NonNullable<
  NonNullable<Awaited<ReturnType<Client['workflowService']['getWorkflowExecutionHistory']>>['history']>['events']
>[number];

/** Whether the event closes the workflow run, however it ended. */
export function isCloseEvent(event: HistoryEvent): boolean {
  return Boolean(
    event.workflowExecutionCompletedEventAttributes ||
    event.workflowExecutionFailedEventAttributes ||
    event.workflowExecutionCanceledEventAttributes ||
    event.workflowExecutionTerminatedEventAttributes ||
    event.workflowExecutionTimedOutEventAttributes,
  );
}
