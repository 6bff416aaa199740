/**
 * A task's numbered event log, as Temporal gives it: by query while its workflow runs, from the
 * closed workflow's memo (or a query a worker answers by replay) once it has ended; and, to learn
 * when to read it again, a long-poll of the workflow's history (`waitNewEvent`), so the gateway
 * never polls queries on a timer.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { eventsQuery, FINAL_EVENTS_MEMO, workflowIdForTask } from '../protocol/contract.js';
import type { TaskEvent } from '../protocol/task-events.js';
import { abortable } from './abortable.js';
import { decodeMemo } from './decode-memo.js';
import { historyPage, isCloseEvent, type HistoryEvent } from './history-events.js';
import { taskWorkflow, type HistoryPosition } from './read.js';

/** Attempts of one event-log query (see `since`). */
const QUERY_ATTEMPTS = 3;

export class TaskEventLog {
  constructor(
    private readonly client: Client,
    private readonly queryDeadlineMs: number,
  ) {}

  /**
   * The events after `afterSeq`, by query. A query that races the workflow's completion can be
   * dropped with the evicted run and only time out (seen under load): each attempt has a short
   * deadline, and a timed-out one is asked again.
   */
  async since(taskId: string, afterSeq: number, signal: AbortSignal): Promise<TaskEvent[]> {
    const handle = taskWorkflow(this.client, taskId);
    for (let attempt = 1; ; attempt++) {
      try {
        const { events } = await abortable(this.client, signal, () =>
          this.client.withDeadline(Date.now() + this.queryDeadlineMs, () => handle.query(eventsQuery, afterSeq)),
        );
        return events;
      } catch (error) {
        if (signal.aborted || attempt >= QUERY_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * The events of a running workflow; undefined when they cannot be read now (no worker answers
   * during a deploy or an outage, or queries time out under load): the task still stands, and the
   * caller asks again later.
   */
  async ofRunning(taskId: string, afterSeq: number, signal: AbortSignal): Promise<TaskEvent[] | undefined> {
    try {
      return await this.since(taskId, afterSeq, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const { status } = await abortable(this.client, signal, () => taskWorkflow(this.client, taskId).describe());
      if (status.name === 'RUNNING') return undefined;
      throw error;
    }
  }

  /**
   * The last events of a closed workflow. The workflow leaves them in a memo, readable with no
   * worker and no replay: from the history the caller long-polled when it holds the memo's upsert
   * (`written`), else from the workflow's description. Older runs (before that memo) and streams
   * further behind are answered by query, which needs a worker to replay the workflow: none when
   * none answers.
   */
  async ofClosed(taskId: string, afterSeq: number, signal: AbortSignal, written?: Payload): Promise<TaskEvent[]> {
    // Written once, in the workflow task that closed it: a described memo would be the same one.
    const fromHistory = written && (await this.decodeFinalEvents(taskId, written));
    const memo = fromMemo(
      fromHistory ?? (await abortable(this.client, signal, () => taskWorkflow(this.client, taskId).describe())).memo,
      afterSeq,
    );
    if (memo) return memo;
    try {
      return await this.since(taskId, afterSeq, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return [];
    }
  }

  /** The final events memo as its upsert in history holds it; undefined if it cannot be decoded here. */
  private async decodeFinalEvents(taskId: string, payload: Payload): Promise<Record<string, unknown> | undefined> {
    const { loadedDataConverter, namespace } = this.client.workflow.options;
    const context = { type: 'workflow', namespace, workflowId: workflowIdForTask(taskId) } as const;
    try {
      return await decodeMemo(loadedDataConverter, { [FINAL_EVENTS_MEMO]: payload }, context);
    } catch {
      // Describe decodes it as the client does (externally stored payloads included).
      return undefined;
    }
  }

  /**
   * Learns of the task workflow's changes until `signal` aborts: from `seen` on when given, else
   * the first change is the history as it stands.
   */
  watch(taskId: string, signal: AbortSignal, seen?: HistoryPosition): HistoryWatcher {
    return new HistoryWatcher(this.client, workflowIdForTask(taskId), signal, seen);
  }
}

/** The final events memo's events after `afterSeq`, if the memo reaches back that far. */
function fromMemo(memo: Record<string, unknown> | undefined, afterSeq: number): TaskEvent[] | undefined {
  const events = memo?.[FINAL_EVENTS_MEMO] as TaskEvent[] | undefined;
  if (!events?.length || events[0]!.seq > afterSeq + 1) return undefined;
  return events.filter((event) => event.seq > afterSeq);
}

export interface HistoryChange {
  /** The workflow has closed for good (not continued as new): no more changes will come. */
  closed: boolean;
  /**
   * Of a closed workflow: its final events memo, as its upsert in the history just read (usually
   * in the same page as the close), which spares a describe. Still encoded.
   */
  finalEventsMemo?: Payload;
}

/**
 * Learns that a task workflow changed by long-polling its history. The history events themselves
 * are not interpreted beyond "something happened", "the run continued as new", "the workflow
 * closed" and the final events memo it wrote before: the task's own event log (read by query, or
 * from that memo) says what changed.
 */
export class HistoryWatcher {
  private runId?: string;
  private nextPageToken?: Uint8Array;
  /** Events up to this one are known to the caller: pages holding only those are no change. */
  private seenLength = 0;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
    private readonly signal: AbortSignal,
    seen?: HistoryPosition,
  ) {
    if (seen) {
      this.runId = seen.runId;
      this.seenLength = seen.historyLength;
    }
  }

  /**
   * Resolves when history grew past what the previous call saw (or the position given to the
   * constructor). Without a position, the first call returns at once with the existing history,
   * which costs the caller one redundant read. Throws if the signal aborts.
   */
  async next(): Promise<HistoryChange> {
    for (;;) {
      const change = await this.poll();
      if (change) return change;
    }
  }

  /**
   * Like `next`, but also resolves, to undefined, when Temporal ends the long-poll (after ~20 s)
   * with history unchanged.
   */
  poll(): Promise<HistoryChange | undefined> {
    return this.read(true);
  }

  /**
   * Reads up to where history stands, without waiting, so that a later `poll` waits from there and
   * returns at the first new event. The change when history already grew past the known position.
   */
  async catchUp(): Promise<HistoryChange | undefined> {
    return this.nextPageToken ? undefined : this.read(false);
  }

  /** Pages of history from where this watcher stands; `wait`: long-poll past the end. */
  private async read(wait: boolean): Promise<HistoryChange | undefined> {
    let finalEventsMemo: Payload | undefined;
    for (;;) {
      const response = await this.page();
      const events = response.history?.events ?? [];
      const continued = events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes);
      const newRunId = continued?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (newRunId) {
        // Follow the chain: the next run's history starts from scratch.
        this.runId = newRunId;
        this.nextPageToken = undefined;
        this.seenLength = 0;
        return { closed: false };
      }
      const token = response.nextPageToken;
      this.nextPageToken = token && token.length > 0 ? token : undefined;
      finalEventsMemo = finalEventsMemoIn(events) ?? finalEventsMemo;
      const closed = events.some(isCloseEvent) || (events.length === 0 && !this.nextPageToken);
      if (closed) return { closed: true, ...(finalEventsMemo && { finalEventsMemo }) };
      // An empty page is the server's long-poll timeout.
      if (events.length === 0) return undefined;
      // A page of known events is no news (the first page, from a known position): keep waiting.
      if (events.some((event) => eventNumber(event) > this.seenLength)) {
        this.seenLength = 0;
        return { closed: false };
      }
      if (!wait && eventNumber(events.at(-1)!) >= this.seenLength) return undefined;
    }
  }

  /** The next page of history, long-polled. */
  private page() {
    return historyPage(
      this.client,
      {
        workflowId: this.workflowId,
        ...(this.runId && { runId: this.runId }),
        ...(this.nextPageToken && { nextPageToken: this.nextPageToken }),
        wait: true,
      },
      this.signal,
    );
  }
}

/** An event's ID (a protobuf Long, which `Number()` cannot read); one without an ID counts as new. */
function eventNumber(event: HistoryEvent): number {
  return event.eventId == null ? Infinity : Number(event.eventId.toString());
}

/** The last upsert of the final events memo among `events`, if any. */
function finalEventsMemoIn(events: HistoryEvent[]): Payload | undefined {
  const memoOf = (event: HistoryEvent) =>
    event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[FINAL_EVENTS_MEMO] ?? undefined;
  const upsert = events.findLast(memoOf);
  return upsert && (memoOf(upsert) as Payload);
}
