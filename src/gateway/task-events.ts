/**
 * A task's events after a given sequence number, as they happen. The workflow keeps the numbered
 * event log; history long-polling says when to read it again. The stream ends at the first status
 * event that settles the task (terminal, input-required or auth-required), when the workflow
 * closes, or at once when `signal` aborts (the client went away).
 */
import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import {
  eventsQuery,
  FINAL_EVENTS_MEMO,
  workflowIdForTask,
  type EventsSince,
  type TaskEvent,
} from '../protocol/contract.js';
import { fromWireState, isSettled } from '../protocol/states.js';
import { toA2AError } from './errors.js';
import { HistoryWatcher } from './history-watcher.js';
import type { TaskReader } from './task-reader.js';
import { abortable } from './abortable.js';

export async function* taskEvents(
  client: Client,
  reader: TaskReader,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<TaskEvent, void, undefined> {
  const handle = reader.handle(taskId);
  const watcher = new HistoryWatcher(client, workflowIdForTask(taskId), signal);
  let seq = afterSeq;
  let closed = false;
  try {
    for (;;) {
      const events = closed ? await finalEvents(client, reader, taskId, seq, signal) : await whileRunning(seq);
      for (const event of events) {
        seq = event.seq;
        yield event;
        if (settles(event)) return;
      }
      if (closed || signal.aborted) return;
      closed = (await watcher.next()).closed;
    }
  } catch (error) {
    if (signal.aborted) return;
    throw toA2AError(error, taskId);
  }

  /**
   * Events of the running workflow. With no worker up (a deploy, an outage) queries time out:
   * the task still stands, so wait for its next change rather than fail the stream.
   */
  async function whileRunning(after: number): Promise<TaskEvent[]> {
    try {
      return (await queryEvents(client, handle, after, signal)).events;
    } catch (error) {
      if (signal.aborted) throw error;
      const { status } = await abortable(client, signal, () => handle.describe());
      if (status.name === 'RUNNING') return [];
      throw error;
    }
  }
}

const QUERY_ATTEMPTS = 3;
const QUERY_DEADLINE_MS = 5_000;

/**
 * A query that races the workflow's completion can be dropped with the evicted run and only time
 * out (seen under load): give each attempt a short deadline and ask again.
 */
async function queryEvents(
  client: Client,
  handle: WorkflowHandle,
  afterSeq: number,
  signal: AbortSignal,
): Promise<EventsSince> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await abortable(client, signal, () =>
        client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(eventsQuery, afterSeq)),
      );
    } catch (error) {
      if (signal.aborted || attempt >= QUERY_ATTEMPTS) throw error;
    }
  }
}

export function settles(event: TaskEvent): boolean {
  if (event.kind !== 'status') return false;
  const state = fromWireState(event.status.state);
  return event.final || (state !== undefined && isSettled(state));
}

/**
 * The last events of a closed workflow, ending with a settling status. The workflow leaves its last
 * events in a memo, readable with no worker and no replay; older runs (before that memo) and
 * streams further behind are answered by query, which needs a worker to replay the workflow. When
 * the workflow died without settling the task (terminated, timed out), the final task, readable
 * with no worker, gives the closing status.
 */
async function finalEvents(
  client: Client,
  reader: TaskReader,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): Promise<TaskEvent[]> {
  const handle = reader.handle(taskId);
  let events = fromMemo(await abortable(client, signal, () => handle.describe()), afterSeq);
  if (!events) {
    try {
      events = (await queryEvents(client, handle, afterSeq, signal)).events;
    } catch (error) {
      if (signal.aborted) throw error;
      events = [];
    }
  }
  if (events.some(settles)) return events;
  const task = await reader.read(taskId);
  const seq = events.at(-1)?.seq ?? afterSeq;
  return [...events, { seq: seq + 1, kind: 'status', status: task.status, final: true }];
}

/** The memo's events after `afterSeq`, if the memo reaches back that far. */
function fromMemo(description: WorkflowExecutionDescription, afterSeq: number): TaskEvent[] | undefined {
  const events = description.memo?.[FINAL_EVENTS_MEMO] as TaskEvent[] | undefined;
  if (!events?.length || events[0]!.seq > afterSeq + 1) return undefined;
  return events.filter((event) => event.seq > afterSeq);
}
