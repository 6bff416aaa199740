/**
 * Events of a workflow's history as the gateway reads them: a page at a time, long-polled by the
 * streams (events.ts, change-bus.ts) or read to the end by the audit export (`taskHistory`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { abortable } from './abortable.js';
import { isTemporalBusy } from './errors.js';

export type HistoryEvent = NonNullable<
  NonNullable<Awaited<ReturnType<Client['workflowService']['getWorkflowExecutionHistory']>>['history']>['events']
>[number];

/** The first pause after Temporal refused a history read as busy, and the longest. */
const BUSY_PAUSE_MS = 1_000;
const BUSY_PAUSE_MAX_MS = 10_000;

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

export interface HistoryPageRequest {
  workflowId: string;
  /** Absent: the workflow's current run. */
  runId?: string;
  nextPageToken?: Uint8Array;
  /** Long-poll: wait for a new event past the end of history. */
  wait: boolean;
}

/**
 * One page of a run's history. A long poll takes one of the namespace's concurrent long polls
 * (1,200 per Temporal frontend by default); a read refused as over that limit (RESOURCE_EXHAUSTED)
 * is asked again after a pause, so the reader waits for a free one rather than failing. The pause
 * grows to BUSY_PAUSE_MAX_MS, spread at random so refused readers do not come back all at once.
 */
export async function historyPage(client: Client, request: HistoryPageRequest, signal: AbortSignal) {
  for (let refused = 0; ; refused++) {
    try {
      return await abortable(client, signal, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId: request.workflowId, ...(request.runId && { runId: request.runId }) },
          waitNewEvent: request.wait,
          ...(request.nextPageToken && { nextPageToken: request.nextPageToken }),
        }),
      );
    } catch (error) {
      if (!isTemporalBusy(error) || signal.aborted) throw error;
      const pause = Math.min(BUSY_PAUSE_MS * 2 ** refused, BUSY_PAUSE_MAX_MS);
      await sleep(pause * (0.5 + Math.random() / 2), undefined, { signal });
    }
  }
}

/**
 * A workflow's whole history as it stands, page by page, oldest first: from `firstRunId` through
 * each run it continued as new into. One page is held at a time.
 */
export async function* taskHistory(
  client: Client,
  workflowId: string,
  firstRunId: string,
  signal: AbortSignal,
): AsyncGenerator<HistoryEvent[]> {
  let runId: string | undefined = firstRunId;
  while (runId) {
    let nextPageToken: Uint8Array | undefined;
    let next: string | undefined;
    do {
      const page = await historyPage(
        client,
        { workflowId, runId, wait: false, ...(nextPageToken && { nextPageToken }) },
        signal,
      );
      const events = page.history?.events ?? [];
      next ??=
        events.find((event) => event.workflowExecutionContinuedAsNewEventAttributes)
          ?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
      if (events.length > 0) yield events;
    } while (nextPageToken);
    runId = next;
  }
}
