/**
 * A task's events after a given sequence number, as they happen. The workflow keeps the numbered
 * event log; history long-polling says when to read it again. A follower's stream ends at the first
 * status event that settles the task (terminal, input-required or auth-required), when the workflow
 * closes, or at once when its signal aborts (the client went away).
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

/**
 * The events of every task some client of this gateway follows, read once per change however many
 * follow it: one feed per task (one history long-poll, one event query per change), shared by its
 * followers, each of which reads from its own sequence number and stops at its own settling event.
 */
export class TaskEventHub {
  private readonly feeds = new Map<string, TaskFeed>();

  constructor(
    private readonly client: Client,
    private readonly reader: TaskReader,
  ) {}

  /** Tasks with a feed open now (one per task, whatever the number of followers). */
  get openFeeds(): number {
    return this.feeds.size;
  }

  /** How many follow `taskId` through this hub now. */
  followersOf(taskId: string): number {
    return this.feeds.get(taskId)?.followers ?? 0;
  }

  async *follow(taskId: string, afterSeq: number, signal: AbortSignal): AsyncGenerator<TaskEvent, void, undefined> {
    let feed = this.feeds.get(taskId);
    if (!feed) {
      // An ended feed leaves the hub at once: a new follower never inherits its end (or its error).
      const started: TaskFeed = new TaskFeed(this.client, this.reader, taskId, afterSeq, () => this.forget(started));
      feed = started;
      this.feeds.set(taskId, feed);
    }
    feed.followers++;
    try {
      yield* feed.follow(afterSeq, signal);
    } finally {
      if (--feed.followers === 0) {
        feed.stop();
        this.forget(feed);
      }
    }
  }

  private forget(feed: TaskFeed): void {
    if (this.feeds.get(feed.taskId) === feed) this.feeds.delete(feed.taskId);
  }
}

/** One task's events as they happen, from `fromSeq` on, for all of its followers. */
class TaskFeed {
  followers = 0;
  private readonly events: TaskEvent[] = [];
  private ended = false;
  private failure: unknown;
  private changed = deferred();
  private readonly controller = new AbortController();

  constructor(
    private readonly client: Client,
    private readonly reader: TaskReader,
    readonly taskId: string,
    private fromSeq: number,
    private readonly onEnd: () => void,
  ) {
    void this.run();
  }

  stop(): void {
    this.controller.abort();
  }

  async *follow(afterSeq: number, signal: AbortSignal): AsyncGenerator<TaskEvent, void, undefined> {
    let seq = afterSeq;
    try {
      // A follower further behind than the feed reads the gap once, by itself.
      if (seq < this.fromSeq) {
        const handle = this.reader.handle(this.taskId);
        for (const event of (await queryEvents(this.client, handle, seq, signal)).events) {
          if (event.seq > this.fromSeq) break;
          seq = event.seq;
          yield event;
          if (settles(event)) return;
        }
      }
      for (;;) {
        const next = this.events.filter((event) => event.seq > seq);
        for (const event of next) {
          seq = event.seq;
          yield event;
          if (settles(event)) return;
        }
        if (next.length > 0) continue;
        if (this.ended) {
          if (this.failure && !this.controller.signal.aborted) throw this.failure;
          return;
        }
        if (signal.aborted) return;
        await this.nextChange(signal);
      }
    } catch (error) {
      if (signal.aborted) return;
      throw toA2AError(error, this.taskId);
    }
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    const handle = this.reader.handle(this.taskId);
    const watcher = new HistoryWatcher(this.client, workflowIdForTask(this.taskId), signal);
    let seq = this.fromSeq;
    let closed = false;
    try {
      for (;;) {
        const events = closed
          ? await finalEvents(this.client, this.reader, this.taskId, seq, signal)
          : await this.whileRunning(handle, seq, signal);
        if (events.length > 0) {
          this.events.push(...events);
          seq = events.at(-1)!.seq;
          this.notify();
        }
        if (closed || signal.aborted) break;
        closed = (await watcher.next()).closed;
      }
    } catch (error) {
      this.failure = error;
    }
    this.ended = true;
    this.onEnd();
    this.notify();
  }

  /** The next change, or the follower going away; one listener per wait, removed after it. */
  private nextChange(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      void this.changed.promise.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /**
   * Events of the running workflow. With no worker up (a deploy, an outage) queries time out:
   * the task still stands, so wait for its next change rather than fail the stream.
   */
  private async whileRunning(handle: WorkflowHandle, after: number, signal: AbortSignal): Promise<TaskEvent[]> {
    try {
      return (await queryEvents(this.client, handle, after, signal)).events;
    } catch (error) {
      if (signal.aborted) throw error;
      const { status } = await abortable(this.client, signal, () => handle.describe());
      if (status.name === 'RUNNING') return [];
      throw error;
    }
  }

  private notify(): void {
    this.changed.resolve();
    this.changed = deferred();
  }
}

/** A promise with its resolver (Promise.withResolvers needs Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
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
