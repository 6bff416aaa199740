/**
 * Learns that a task workflow changed by long-polling its history (`waitNewEvent`), so the gateway
 * never polls queries on a timer. The history events themselves are not interpreted beyond
 * "something happened", "the run continued as new" and "the workflow closed": the task's own event
 * log (read by query) says what changed.
 */
import type { Client } from '@temporalio/client';
import { abortable } from './abortable.js';

export interface HistoryChange {
  /** The workflow has closed for good (not continued as new): no more changes will come. */
  closed: boolean;
}

export class HistoryWatcher {
  private runId?: string;
  private nextPageToken?: Uint8Array;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Resolves when history grew past what the previous call saw. The first call returns at once
   * with the existing history, which only costs one redundant query. Throws if the signal aborts.
   */
  async next(): Promise<HistoryChange> {
    for (;;) {
      const response = await abortable(this.client, this.signal, () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.client.options.namespace,
          execution: { workflowId: this.workflowId, ...(this.runId && { runId: this.runId }) },
          waitNewEvent: true,
          ...(this.nextPageToken && { nextPageToken: this.nextPageToken }),
        }),
      );
      const events = response.history?.events ?? [];
      const continued = events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes);
      const newRunId = continued?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (newRunId) {
        // Follow the chain: the next run's history starts from scratch.
        this.runId = newRunId;
        this.nextPageToken = undefined;
        return { closed: false };
      }
      const token = response.nextPageToken;
      this.nextPageToken = token && token.length > 0 ? token : undefined;
      const closed = events.some(isCloseEvent) || (events.length === 0 && !this.nextPageToken);
      if (closed) return { closed: true };
      // An empty page is the server's long-poll timeout: keep waiting.
      if (events.length > 0) return { closed: false };
    }
  }
}

type HistoryEvent = NonNullable<
  NonNullable<Awaited<ReturnType<Client['workflowService']['getWorkflowExecutionHistory']>>['history']>['events']
>[number];

function isCloseEvent(event: HistoryEvent): boolean {
  return Boolean(
    event.workflowExecutionCompletedEventAttributes ||
    event.workflowExecutionFailedEventAttributes ||
    event.workflowExecutionCanceledEventAttributes ||
    event.workflowExecutionTerminatedEventAttributes ||
    event.workflowExecutionTimedOutEventAttributes,
  );
}
