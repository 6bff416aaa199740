/**
 * The visibility watch of tasks waiting for input (one list for all of them instead of a history
 * long-poll each), against the test Temporal server: what wakes a waiter and what does not.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TaskWorkflows } from '../../../src/tasks/index.js';
import { WaitingTaskWatch } from '../../../src/tasks/waiting-watch.js';
import type { WireTaskStatus } from '../../../src/protocol/wire.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';

const harness = useGatewayHarness();

function expenseWorkflows(): TaskWorkflows {
  return new TaskWorkflows(harness.temporal, { agent: 'expense-approval', taskQueue: harness.worker.taskQueue });
}

function message(text: string, taskId?: string) {
  return { messageId: randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...(taskId && { taskId }) };
}

async function waitingTask(workflows: TaskWorkflows): Promise<{ taskId: string; status: WireTaskStatus }> {
  const { taskId } = await workflows.start({ ...message(EXPENSE_REQUEST), untilSettled: true });
  const { task } = await workflows.snapshot(taskId);
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return { taskId, status: task.status };
}

/** Whether `wait` settles within `ms`, and how. */
function within<T>(wait: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([
    wait,
    new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms)),
  ]);
}

describe('the waiting-task watch', () => {
  it('lets a task whose status it knows wait through many lists, and wakes it when this gateway changes it', async () => {
    const { taskId, status } = await waitingTask(expenseWorkflows());
    const watch = new WaitingTaskWatch(harness.temporal, { intervalMs: 100, fullCheckEvery: 2 });
    const stop = new AbortController();
    const change = watch.changeOf(taskId, status, stop.signal);
    expect(await within(change, 1_500)).toBe('still waiting');
    watch.wake(taskId);
    expect(await change).toBe('changed');
    expect(watch.watched).toBe(0);
  });

  it('wakes a task answered through another gateway once visibility shows it no longer waiting', async () => {
    const workflows = expenseWorkflows();
    const { taskId, status } = await waitingTask(workflows);
    // Only comparing lists at first (the first list compares every task): later lists ask for changed rows only.
    const watch = new WaitingTaskWatch(harness.temporal, { intervalMs: 100, fullCheckEvery: 1_000 });
    const stop = new AbortController();
    const change = watch.changeOf(taskId, status, stop.signal);
    expect(await within(change, 500)).toBe('still waiting');
    const answered = await expenseWorkflows().followUp(
      taskId,
      { ...message('approve', taskId), untilSettled: true },
      stop.signal,
    );
    expect(answered.accepted.settled?.state).toBe('completed');
    expect(await within(change, 10_000)).toBe('changed');
  });

  it('wakes a task whose listed status is newer than the one known (it was answered and asks again)', async () => {
    const { taskId, status } = await waitingTask(expenseWorkflows());
    const older: WireTaskStatus = {
      ...status,
      timestamp: new Date(Date.parse(status.timestamp) - 1_000).toISOString(),
    };
    const watch = new WaitingTaskWatch(harness.temporal, { intervalMs: 100 });
    expect(await within(watch.changeOf(taskId, older, new AbortController().signal), 10_000)).toBe('changed');
  });

  it('compares every task again, a share at each list: one answered elsewhere that asks again at once is woken', async () => {
    const workflows = expenseWorkflows();
    const tasks = [await waitingTask(workflows), await waitingTask(workflows), await waitingTask(workflows)];
    // One summary per list once each task has had its first compare.
    const watch = new WaitingTaskWatch(harness.temporal, { intervalMs: 100, fullCheckEvery: 3 });
    const stop = new AbortController();
    const changes = tasks.map(({ taskId, status }) => watch.changeOf(taskId, status, stop.signal));
    expect(await within(Promise.race(changes), 800)).toBe('still waiting');
    // Not a reply the agent takes: it asks again in the same workflow task, so visibility never shows it not waiting.
    const [asked] = tasks;
    const answered = await expenseWorkflows().followUp(
      asked!.taskId,
      { ...message('maybe', asked!.taskId), untilSettled: true },
      stop.signal,
    );
    expect(answered.accepted.settled?.state).toBe('input-required');
    expect(await within(changes[0]!, 10_000)).toBe('changed');
    expect(await within(Promise.race(changes.slice(1)), 1_000)).toBe('still waiting');
    stop.abort();
  });

  it('ends a wait whose signal aborts, and stops listing once nothing is watched', async () => {
    const { taskId, status } = await waitingTask(expenseWorkflows());
    const watch = new WaitingTaskWatch(harness.temporal, { intervalMs: 100 });
    const stop = new AbortController();
    const change = watch.changeOf(taskId, status, stop.signal);
    stop.abort();
    expect(await change).toBe('changed');
    expect(watch.watched).toBe(0);
  });
});
