/**
 * A task's events after a given sequence number, as they happen. The workflow keeps the numbered
 * event log; history long-polling says when to read it again. The stream ends at the first status
 * event that settles the task (terminal, input-required or auth-required), when the workflow
 * closes, or at once when `signal` aborts (the client went away).
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { eventsQuery, workflowIdForTask, type EventsSince, type TaskEvent } from '../protocol/contract.js';
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
      const since = closed ? await finalEvents(client, reader, taskId, seq, signal) : await query(seq);
      for (const event of since.events) {
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

  function query(after: number): Promise<EventsSince> {
    return queryEvents(client, handle, after, signal);
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
 * The last events of a closed workflow. Queries on closed workflows need a worker to replay them;
 * without one, the final task (readable with no worker) stands in as one final status event.
 */
async function finalEvents(
  client: Client,
  reader: TaskReader,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): Promise<EventsSince> {
  try {
    return await queryEvents(client, reader.handle(taskId), afterSeq, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    const task = await reader.read(taskId);
    const state = fromWireState(task.status.state) ?? 'failed';
    return {
      events: [{ seq: afterSeq + 1, kind: 'status', status: task.status, final: true }],
      lastSeq: afterSeq + 1,
      state,
    };
  }
}
