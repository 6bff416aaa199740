import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { cancelTaskUpdate, FINAL_TASK_MEMO } from '../../src/protocol/contract.js';
import type { WireTask } from '../../src/protocol/wire.js';
import { startTask, stateOf, waitForState } from '../support/tasks.js';
import { abortedActivities } from '../support/test-activities.js';
import { useTemporal } from './test-context.js';

const temporal = useTemporal();

describe('cancellation', () => {
  it('cancel from working: the running activity sees the abort, then the task ends canceled', async () => {
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-block', {
      text: 'go',
    });
    await waitForState(handle, 'working');
    await new Promise((r) => setTimeout(r, 500)); // let the activity start and heartbeat
    const task = await handle.executeUpdate(cancelTaskUpdate, { args: [{ by: 'frank', reason: 'no longer needed' }] });
    expect(stateOf(task)).toBe('canceled');
    // The task reports canceled only once the activity has really stopped.
    expect(abortedActivities.has(taskId)).toBe(true);
    const timeline = task.metadata!.timeline as { state: string; by?: string; message?: string }[];
    expect(timeline.at(-1)).toMatchObject({ state: 'canceled', by: 'frank', message: 'no longer needed' });
    expect(stateOf((await handle.result()) as WireTask)).toBe('canceled');
  });

  it('cancel while input-required is immediate', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-ask', { text: 'x' });
    await waitForState(handle, 'input-required');
    const task = await handle.executeUpdate(cancelTaskUpdate, { args: [{}] });
    expect(stateOf(task)).toBe('canceled');
    // Nothing ran in between: the wait itself was canceled, not some later step.
    const states = (task.metadata!.timeline as { state: string }[]).map((e) => e.state);
    expect(states.slice(-2)).toEqual(['input-required', 'canceled']);
  });

  it('an operator cancel through Temporal ends canceled, Temporal status CANCELED, final task in the memo', async () => {
    const { taskId, handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'test-block', {
      text: 'go',
    });
    await waitForState(handle, 'working');
    await new Promise((r) => setTimeout(r, 500));
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const description = await handle.describe();
    expect(description.status.name).toBe('CANCELLED');
    expect(abortedActivities.has(taskId)).toBe(true);
    const memo = description.memo?.[FINAL_TASK_MEMO] as WireTask;
    expect(stateOf(memo)).toBe('canceled');
    expect((memo.metadata!.timeline as { by?: string }[]).at(-1)!.by).toBe('temporal');
  });

  it('an operator cancel of a waiting task', async () => {
    const { handle } = await startTask(temporal.client, temporal.worker.taskQueue, 'expense-approval', {
      text: 'Please approve an expense of 5 USD for stamps',
    });
    await waitForState(handle, 'input-required');
    await handle.cancel();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(stateOf((await handle.describe()).memo?.[FINAL_TASK_MEMO] as WireTask)).toBe('canceled');
  });

  it('a cancel wins even when agent code swallows the cancellation', async () => {
    const viaUpdate = await startTask(temporal.client, temporal.worker.taskQueue, 'test-stubborn', { text: 'x' });
    await waitForState(viaUpdate.handle, 'input-required');
    expect(stateOf(await viaUpdate.handle.executeUpdate(cancelTaskUpdate, { args: [{}] }))).toBe('canceled');

    const viaTemporal = await startTask(temporal.client, temporal.worker.taskQueue, 'test-stubborn', { text: 'x' });
    await waitForState(viaTemporal.handle, 'input-required');
    await viaTemporal.handle.cancel();
    await expect(viaTemporal.handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await viaTemporal.handle.describe()).status.name).toBe('CANCELLED');
  });
});
