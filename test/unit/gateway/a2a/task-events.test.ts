import { describe, expect, it } from 'vitest';
import type { SubscribableTask, TaskWorkflows } from '../../../../src/tasks/index.js';
import { TaskEventHub } from '../../../../src/gateway/a2a/task-events.js';
import type { TaskEvent } from '../../../../src/protocol/task-events.js';

/** Only `subscribable` is reached before a follower opens a feed; each call is counted and settled by hand. */
function workflowsWithReads() {
  const reads: { resolve: (start: SubscribableTask) => void; reject: (error: Error) => void }[] = [];
  const workflows = {
    subscribable: () => new Promise<SubscribableTask>((resolve, reject) => reads.push({ resolve, reject })),
  } as unknown as TaskWorkflows;
  return { workflows, reads };
}

const start: SubscribableTask = {
  snapshot: {
    task: {
      id: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-11-22T00:00:00.000Z' },
    },
    lastSeq: 3,
  },
  audience: { owner: 'alice' },
};

describe('TaskEventHub.startOf', () => {
  it('gives subscribers that arrive together one read', async () => {
    const { workflows, reads } = workflowsWithReads();
    const hub = new TaskEventHub(workflows);
    const first = hub.startOf('t1');
    const second = hub.startOf('t1');
    expect(reads).toHaveLength(1);
    reads[0]!.resolve(start);
    expect(await first).toBe(start);
    expect(await second).toBe(start);
  });

  it('reads again once that read is over and no feed tells whether it is still current', async () => {
    const { workflows, reads } = workflowsWithReads();
    const hub = new TaskEventHub(workflows);
    const first = hub.startOf('t1');
    reads[0]!.resolve(start);
    await first;
    void hub.startOf('t1');
    expect(reads).toHaveLength(2);
  });

  it('shares a failed read only with those that waited for it', async () => {
    const { workflows, reads } = workflowsWithReads();
    const hub = new TaskEventHub(workflows);
    const first = hub.startOf('t1');
    reads[0]!.reject(new Error('no worker answered'));
    await expect(first).rejects.toThrow('no worker answered');
    void hub.startOf('t1');
    expect(reads).toHaveLength(2);
  });
});

/** A task's event log that grows by hand; like history long-polling, `watch` answers at once, then on each change. */
function workflowsWithLog() {
  const log: TaskEvent[] = [];
  const gapReads: number[] = [];
  /** Reads of a running task that fail (undefined: a query no worker answered) before they succeed again. */
  const failing = { reads: 0 };
  /** Reads of a running task's events, successful or not. */
  const reads = { running: 0 };
  let changed = () => {};
  let changes = 0;
  const after = (seq: number) => log.filter((event) => event.seq > seq);
  const watch = () => {
    let seen = -1;
    return {
      next: async () => {
        while (seen === changes) await new Promise<void>((resolve) => (changed = resolve));
        seen = changes;
        return { closed: false };
      },
    };
  };
  const workflows = {
    events: {
      ofRunning: async (_id: string, seq: number) => (reads.running++, failing.reads-- > 0 ? undefined : after(seq)),
      since: async (_id: string, seq: number) => (gapReads.push(seq), after(seq)),
      watch,
    },
  } as unknown as TaskWorkflows;
  const append = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const seq = log.length + 1;
      const artifact = { artifactId: 'a', parts: [{ text: `${seq}` }] };
      log.push({ seq, kind: 'artifact', artifact, append: true, lastChunk: false });
    }
    changes++;
    changed();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { workflows, append, gapReads, failing, reads };
}

/** Reads `count` events of a follower, as sequence numbers. */
async function take(events: AsyncGenerator<TaskEvent>, count: number): Promise<number[]> {
  const seqs: number[] = [];
  while (seqs.length < count) seqs.push((await events.next()).value!.seq);
  return seqs;
}

describe('TaskEventHub feeds', () => {
  it('hold only the events some follower has not passed, and a later follower reads its gap itself', async () => {
    const { workflows, append, gapReads } = workflowsWithLog();
    const hub = new TaskEventHub(workflows);
    const stop = new AbortController();
    const fast = hub.follow('t1', 0, stop.signal);
    const slow = hub.follow('t1', 0, stop.signal);
    const firstFast = take(fast, 100);
    await append(100);
    expect(await firstFast).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await take(slow, 60)).toHaveLength(60);

    await append(10); // the first 60 are behind every follower now
    expect(hub.retainedEventsOf('t1')).toBe(50);
    expect(await take(slow, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 61));
    expect(await take(fast, 10)).toEqual(Array.from({ length: 10 }, (_, i) => i + 101));

    const late = hub.follow('t1', 20, stop.signal);
    expect(await take(late, 90)).toEqual(Array.from({ length: 90 }, (_, i) => i + 21));
    expect(gapReads).toEqual([20]);
    stop.abort();
  });

  it('read the events once when they start, then once per change', async () => {
    const { workflows, append, reads } = workflowsWithLog();
    await append(2); // before anyone follows
    const hub = new TaskEventHub(workflows);
    const stop = new AbortController();
    const follower = hub.follow('t1', 0, stop.signal);
    expect(await take(follower, 2)).toEqual([1, 2]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reads.running).toBe(1);
    const next = take(follower, 1);
    await append(1);
    expect(await next).toEqual([3]);
    expect(reads.running).toBe(2);
    stop.abort();
  });

  it('stop a follower whose client went away between two events of one change', async () => {
    const { workflows, append } = workflowsWithLog();
    const hub = new TaskEventHub(workflows);
    const staying = new AbortController();
    const leaving = new AbortController();
    const stays = hub.follow('t1', 0, staying.signal);
    const leaves = hub.follow('t1', 0, leaving.signal);
    const stayed = take(stays, 5);
    const first = leaves.next();
    await append(5);
    expect((await first).value?.seq).toBe(1);
    leaving.abort();
    expect(await leaves.next()).toEqual({ done: true, value: undefined });
    expect(await stayed).toEqual([1, 2, 3, 4, 5]);
    staying.abort();
  });

  it('read again a change whose events could not be read, though the history does not change again', async () => {
    const { workflows, append, failing } = workflowsWithLog();
    const hub = new TaskEventHub(workflows);
    const stop = new AbortController();
    const follower = hub.follow('t1', 0, stop.signal);
    const first = take(follower, 1);
    await append(1);
    expect(await first).toEqual([1]);
    failing.reads = 1;
    const started = Date.now();
    const next = take(follower, 1);
    await append(1); // its events query fails; nothing more happens in the history
    expect(await next).toEqual([2]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    stop.abort();
  });
});
