import { describe, expect, it } from 'vitest';
import { cancelTask, finalTask, startTask, stateOf, waitForState } from '../../support/tasks.js';
import { abortedActivities } from '../../support/test-activities.js';
import { useTemporal } from '../../support/use-temporal.js';

const temporal = useTemporal();

type Timeline = { state: string; by?: string; message?: string }[];

describe('cancellation', () => {
  it('cancel from working: the running activity sees the abort, then the task ends canceled, CANCELED in Temporal', async () => {
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-block', {
      text: 'go',
    });
    await waitForState(handle, 'working');
    await new Promise((r) => setTimeout(r, 500)); // let the activity start and heartbeat
    const task = await cancelTask(temporal.client, taskId, { by: 'frank', reason: 'no longer needed' });
    expect(stateOf(task)).toBe('canceled');
    // The task reports canceled only once the activity has really stopped.
    expect(abortedActivities.has(taskId)).toBe(true);
    expect((task.metadata!.timeline as Timeline).at(-1)).toMatchObject({
      state: 'canceled',
      by: 'frank',
      message: 'no longer needed',
    });
    const final = await finalTask(handle);
    expect(final.status).toBe('CANCELLED');
    expect(final.task).toEqual(task);
  });

  it('cancel while input-required is immediate', async () => {
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', { text: 'x' });
    await waitForState(handle, 'input-required');
    const task = await cancelTask(temporal.client, taskId, {});
    expect(stateOf(task)).toBe('canceled');
    // Nothing ran in between: the wait itself was canceled, not some later step.
    const states = (task.metadata!.timeline as Timeline).map((e) => e.state);
    expect(states.slice(-2)).toEqual(['input-required', 'canceled']);
    expect((await finalTask(handle)).status).toBe('CANCELLED');
  });

  it('an operator cancel through Temporal ends canceled, Temporal status CANCELED, final task in the memo', async () => {
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-block', {
      text: 'go',
    });
    await waitForState(handle, 'working');
    await new Promise((r) => setTimeout(r, 500));
    await handle.cancel();
    const { task, status } = await finalTask(handle);
    expect(status).toBe('CANCELLED');
    expect(abortedActivities.has(taskId)).toBe(true);
    expect(stateOf(task)).toBe('canceled');
    expect((task.metadata!.timeline as Timeline).at(-1)!.by).toBe('temporal');
  });

  it('an operator cancel of a waiting task', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'expense-approval', {
      text: 'Please approve an expense of 5 USD for stamps',
    });
    await waitForState(handle, 'input-required');
    await handle.cancel();
    expect(stateOf((await finalTask(handle)).task)).toBe('canceled');
  });

  it('a cancel wins even when agent code swallows the cancellation', async () => {
    const viaUpdate = await startTask(temporal.client, temporal.worker.taskQueue, 'test-stubborn', { text: 'x' });
    await waitForState(viaUpdate.handle, 'input-required');
    expect(stateOf(await cancelTask(temporal.client, viaUpdate.taskId, {}))).toBe('canceled');
    expect((await finalTask(viaUpdate.handle)).status).toBe('CANCELLED');

    const viaTemporal = await startTask(temporal.client, temporal.worker.taskQueue, 'test-stubborn', { text: 'x' });
    await waitForState(viaTemporal.handle, 'input-required');
    await viaTemporal.handle.cancel();
    const { task, status } = await finalTask(viaTemporal.handle);
    expect(status).toBe('CANCELLED');
    expect(stateOf(task)).toBe('canceled');
  });

  it('a cancel the task refuses asks nothing of Temporal: the task goes on', async () => {
    const alice = { id: 'alice', groups: [] };
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', {
      text: 'x',
      caller: alice,
    });
    await waitForState(handle, 'input-required');
    await expect(cancelTask(temporal.client, taskId, { caller: { id: 'mallory', groups: [] } })).rejects.toMatchObject({
      cause: { type: 'NotVisibleToCaller' },
    });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    const history = await handle.fetchHistory();
    expect(history.events?.some((event) => event.workflowExecutionCancelRequestedEventAttributes)).toBe(false);
    expect(stateOf(await cancelTask(temporal.client, taskId, { caller: alice }))).toBe('canceled');
  });
});
