import { describe, expect, it } from 'vitest';
import type { SubscribableTask, TaskWorkflows } from '../../src/gateway/task-workflows/index.js';
import { TaskEventHub } from '../../src/gateway/task-events.js';

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
