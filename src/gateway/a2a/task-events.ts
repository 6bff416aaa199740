/**
 * A task's events after a given sequence number, as they happen. The workflow keeps the numbered
 * event log; history long-polling says when to read it again (src/tasks/events.ts), or, while
 * the task waits for input, the gateway's TaskChanges (src/tasks/task-changes.ts). A
 * follower's stream ends at the first status event that settles the task (terminal, input-required
 * or auth-required), when the workflow closes, or at once when its signal aborts (the client went away).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskEvent } from '../../protocol/task-events.js';
import { fromWireState, isInterrupted, isSettled } from '../../protocol/states.js';
import type { WireTaskStatus } from '../../protocol/wire.js';
import { toA2AError } from '../../tasks/errors.js';
import type { HistoryChange, HistoryPosition, SubscribableTask, TaskWorkflows } from '../../tasks/index.js';

/**
 * The events of every task some client of this gateway follows, read once per change however many
 * follow it: one feed per task (one history long-poll, one event query per change), shared by its
 * followers, each of which reads from its own sequence number and stops at its own settling event.
 */
export class TaskEventHub {
  private readonly feeds = new Map<string, TaskFeed>();
  /** Where new followers start, per task: while loading, then briefly while the task's feed has seen no change. */
  private readonly starts = new Map<string, SharedStart>();

  constructor(private readonly workflows: TaskWorkflows) {}

  /** Tasks with a feed open now (one per task, whatever the number of followers). */
  get openFeeds(): number {
    return this.feeds.size;
  }

  /** Tasks waiting for input whose feed has no long-poll of its own now, of all the gateway's agents (see src/tasks/waiting-watch.ts). */
  get waitingFeeds(): number {
    return this.workflows.changes.waiting.watched;
  }

  /** How many follow `taskId` through this hub now. */
  followersOf(taskId: string): number {
    return this.feeds.get(taskId)?.followers ?? 0;
  }

  /** How many of `taskId`'s events the hub holds for its followers (at most the slowest one's lag). */
  retainedEventsOf(taskId: string): number {
    return this.feeds.get(taskId)?.retained ?? 0;
  }

  /**
   * The events of `taskId` after `afterSeq`. `known`, what was read with `afterSeq` (a start from
   * `startOf`), spares a new feed reading the events again before anything changed, and tells it
   * whether the task waits for input.
   */
  async *follow(
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    known: KnownAtStart = {},
  ): AsyncGenerator<TaskEvent, void, undefined> {
    let feed = this.feeds.get(taskId);
    if (!feed) {
      // An ended feed leaves the hub at once: a new follower never inherits its end (or its error).
      const started: TaskFeed = new TaskFeed(this.workflows, taskId, afterSeq, () => this.forget(started), known);
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

  /**
   * Where a new follower of `taskId` starts, shared: followers that arrive together start from one
   * read instead of one query each (a thousand subscribers at once would queue a thousand queries on
   * the worker, and time out). Any snapshot is a sound start, even one a change has just overtaken:
   * the feed delivers every event after it. But who may see the task is decided on it too, and a
   * feed can be slow to learn of a change, so a read is reused for at most START_REUSE_MS.
   */
  startOf(taskId: string): Promise<SubscribableTask> {
    const known = this.starts.get(taskId);
    const feed = this.feeds.get(taskId);
    const fresh = (start: SharedStart) =>
      start.lastSeq === undefined ||
      (feed !== undefined && start.lastSeq >= feed.latestSeq && Date.now() - start.loadedAt! < START_REUSE_MS);
    if (known && fresh(known)) return known.loaded;
    const start: SharedStart = { loaded: this.workflows.subscribable(taskId) };
    this.starts.set(taskId, start);
    const drop = () => {
      if (this.starts.get(taskId) === start) this.starts.delete(taskId);
    };
    start.loaded.then(({ snapshot }) => {
      start.lastSeq = snapshot.lastSeq;
      start.loadedAt = Date.now();
      // Kept only while a feed lives to tell when it is outdated (forget drops it with the feed).
      if (!this.feeds.has(taskId)) drop();
    }, drop);
    return start.loaded;
  }

  private forget(feed: TaskFeed): void {
    if (this.feeds.get(feed.taskId) !== feed) return;
    this.feeds.delete(feed.taskId);
    this.starts.delete(feed.taskId);
  }
}

/** What a follower read of the task along with the sequence number it follows from. */
export interface KnownAtStart {
  /** Where history stood just before. */
  readAt?: HistoryPosition;
  /** The task's status then. */
  status?: WireTaskStatus;
}

/** How long a resolved start may serve later followers (it decides their access too). */
const START_REUSE_MS = 1_000;

/** A start being read (no `lastSeq` yet), or read at `loadedAt` with its snapshot's sequence number. */
interface SharedStart {
  loaded: Promise<SubscribableTask>;
  lastSeq?: number;
  loadedAt?: number;
}

/**
 * One task's events as they happen, after `fromSeq`, for all of its followers. Events every follower
 * has passed are dropped when the next ones arrive, so a long streaming task costs memory for the
 * slowest follower's lag only; a follower that starts further behind reads its gap by itself.
 */
class TaskFeed {
  followers = 0;
  private readonly events: TaskEvent[] = [];
  /** The sequence number each follower has passed. */
  private readonly positions = new Map<symbol, number>();
  private ended = false;
  private failure: unknown;
  /** Followers waiting for the next change, in the order they began to wait. */
  private readonly waiting = new Set<() => void>();
  /** The followers to run in the next queued macrotask, while it has room (see `inTurn`). */
  private turn?: (() => void)[];
  private readonly controller = new AbortController();
  /** Where history stood when the events up to `fromSeq` were read, if known. */
  private readonly readAt?: HistoryPosition;
  /** The task's status as of the newest event the feed knows of, if known. */
  private status?: WireTaskStatus;

  constructor(
    private readonly workflows: TaskWorkflows,
    readonly taskId: string,
    private fromSeq: number,
    private readonly onEnd: () => void,
    known: KnownAtStart,
  ) {
    this.readAt = known.readAt;
    this.status = known.status;
    void this.run();
  }

  stop(): void {
    this.controller.abort();
  }

  /** The sequence number of the newest event this feed knows of. */
  get latestSeq(): number {
    return this.events.at(-1)?.seq ?? this.fromSeq;
  }

  /** How many events the feed holds for its followers. */
  get retained(): number {
    return this.events.length;
  }

  async *follow(afterSeq: number, signal: AbortSignal): AsyncGenerator<TaskEvent, void, undefined> {
    let seq = afterSeq;
    const follower = Symbol('follower');
    this.positions.set(follower, seq);
    try {
      // A follower further behind than the feed reads the gap once, by itself.
      if (seq < this.fromSeq) {
        for (const event of await this.workflows.events.since(this.taskId, seq, signal)) {
          if (event.seq > this.fromSeq) break;
          seq = event.seq;
          yield event;
          if (settles(event)) return;
        }
      }
      for (;;) {
        const next = this.events.filter((event) => event.seq > seq);
        for (const [index, event] of next.entries()) {
          // Breadth first among followers: each writes one event per macrotask, so a change's first
          // event reaches every stream before any stream gets the next one (bench/README.md, path 4).
          // A lone follower writes its events at once.
          if (index > 0 && this.followers > 1) {
            await this.nextTurn();
            if (signal.aborted) return;
          }
          seq = event.seq;
          this.positions.set(follower, seq);
          yield event;
          if (settles(event)) {
            // Ending a stream (closing its response, often its connection) waits until every
            // follower woken with this one has written its events.
            await this.nextTurn();
            return;
          }
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
    } finally {
      this.positions.delete(follower);
    }
  }

  /** Drops the events every follower has passed (all of them when none follows). */
  private trim(): void {
    const passed = Math.min(...this.positions.values());
    const kept = this.events.findIndex((event) => event.seq > passed);
    const dropped = kept === -1 ? this.events.length : kept;
    if (dropped === 0) return;
    this.fromSeq = this.events[dropped - 1]!.seq;
    this.events.splice(0, dropped);
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    const watcher = this.workflows.events.watch(this.taskId, signal, this.readAt);
    let seq = this.fromSeq;
    let closed = false;
    /** The closed workflow's final events as its history showed them, if it did (see HistoryChange). */
    let finalEventsMemo: HistoryChange['finalEventsMemo'];
    const learn = (change: HistoryChange) => {
      closed = change.closed;
      finalEventsMemo = change.finalEventsMemo;
    };
    let change: Promise<HistoryChange | undefined> | undefined;
    let unread = 0;
    // A start read at a known point of history is current until history grows past it. Without one,
    // learn where history stands first, then read: the long-poll then wakes only for what came later
    // (reading first, the long-poll's first answer would be the history already read).
    let current = this.readAt !== undefined;
    /** Whether visibility tells this task's changes (tasks older than the summary memo: no). */
    let watchable = true;
    try {
      if (!current) learn(await watcher.next());
      for (;;) {
        if (!current) {
          const events = closed
            ? await finalEvents(this.workflows, this.taskId, seq, signal, finalEventsMemo)
            : await this.workflows.events.ofRunning(this.taskId, seq, signal);
          unread = events ? 0 : unread + 1;
          if (events?.length) {
            this.trim();
            this.events.push(...events);
            seq = events.at(-1)!.seq;
            this.status = events.findLast(isStatusEvent)?.status ?? this.status;
            this.notify();
          }
        }
        current = false;
        if (closed || signal.aborted) break;
        const waiting = this.waitingStatus();
        if (!change && unread === 0 && watchable && waiting) {
          // Where history stands first, so that a wake-up long-polls from there (and returns at the
          // first new event, as a feed's long-poll does, rather than read all history first).
          const grown = await watcher.catchUp();
          if (grown) {
            learn(grown);
            continue;
          }
          // A task waiting for input may not change for days: no long-poll of its own meanwhile.
          watchable = (await this.workflows.changes.waiting.changeOf(this.taskId, waiting, signal)) !== 'unwatchable';
          if (signal.aborted) break;
          // Returns at once if history grew; if not (a false alarm), after Temporal's long-poll timeout.
          change = watcher.poll();
        }
        // A change whose events could not be read is read again after a while: the history may not
        // grow again for days (a task waiting for input).
        change ??= watcher.next();
        const woke = await (unread === 0 ? change : Promise.race([change, retryAfter(unread, signal)]));
        if (woke === RETRY) continue;
        change = undefined;
        // The long-poll ended with history as it was: the events read stand.
        if (woke === undefined) current = true;
        else learn(woke);
      }
    } catch (error) {
      this.failure = error;
    }
    this.ended = true;
    this.onEnd();
    this.notify();
  }

  /** The task's status while it waits for input (input-required, auth-required), as the feed knows it. */
  private waitingStatus(): WireTaskStatus | undefined {
    const state = this.status && fromWireState(this.status.state);
    return state && isInterrupted(state) ? this.status : undefined;
  }

  /** The next change, or the follower going away; one listener per wait, removed after it. */
  private nextChange(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', wake);
        this.waiting.delete(wake);
        resolve();
      };
      signal.addEventListener('abort', wake, { once: true });
      this.waiting.add(wake);
    });
  }

  /**
   * Wakes the waiting followers in the order they waited, a few per macrotask (see `inTurn`).
   * Queued at once, the first ones run at the next turn of the event loop rather than after every
   * follower has been woken.
   */
  private notify(): void {
    for (const wake of this.waiting) this.inTurn(wake);
    this.waiting.clear();
  }

  /** Resolves in a macrotask shared with a few other followers (see `inTurn`). */
  private nextTurn(): Promise<void> {
    return new Promise((resolve) => this.inTurn(resolve));
  }

  /**
   * Runs `follower` in a queued macrotask with up to FOLLOWERS_PER_MACROTASK others, in the order
   * asked: Node sends what a response wrote only once the microtask queue drains, so followers run
   * together in one microtask run all reach their clients after the last of them (bench/README.md,
   * path 4); a few per macrotask write their sockets back to back, which costs less than one by one.
   */
  private inTurn(follower: () => void): void {
    if (!this.turn || this.turn.length >= FOLLOWERS_PER_MACROTASK) {
      const turn: (() => void)[] = [];
      this.turn = turn;
      setImmediate(() => {
        if (this.turn === turn) this.turn = undefined;
        for (const run of turn) run();
      });
    }
    this.turn.push(follower);
  }
}

/**
 * Followers run per macrotask (a change's wake-ups all run in one turn of the event loop, each
 * macrotask followed by its followers' socket writes). 16 measured best of 1, 4, 8, 16, 64 and all at
 * once, for the first event of a change and the later ones alike (bench/README.md, path 4).
 */
const FOLLOWERS_PER_MACROTASK = 16;

const RETRY = Symbol('retry');

/** Resolves to RETRY after a backoff of 1, 2, 4 … up to 30 s for the nth read that failed, or on abort. */
function retryAfter(failures: number, signal: AbortSignal): Promise<typeof RETRY> {
  const ms = Math.min(1_000 * 2 ** (failures - 1), 30_000);
  return sleep(ms, RETRY, { signal }).catch(() => RETRY);
}

function isStatusEvent(event: TaskEvent): event is Extract<TaskEvent, { kind: 'status' }> {
  return event.kind === 'status';
}

function settles(event: TaskEvent): boolean {
  if (event.kind !== 'status') return false;
  const state = fromWireState(event.status.state);
  return event.final || (state !== undefined && isSettled(state));
}

/**
 * The last events of a closed workflow, ending with a settling status. When the workflow died
 * without settling the task (terminated, timed out), the final task, readable with no worker, gives
 * the closing status.
 */
async function finalEvents(
  workflows: TaskWorkflows,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
  finalEventsMemo: HistoryChange['finalEventsMemo'],
): Promise<TaskEvent[]> {
  const events = await workflows.events.ofClosed(taskId, afterSeq, signal, finalEventsMemo);
  if (events.some(settles)) return events;
  const task = await workflows.read(taskId);
  const seq = events.at(-1)?.seq ?? afterSeq;
  return [...events, { seq: seq + 1, kind: 'status', status: task.status, final: true }];
}
