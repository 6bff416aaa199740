/**
 * CancelTask on working, waiting and finished tasks; GetTask of a canceled task. How finished
 * tasks show in Temporal (the UI's list): canceled ones CANCELED, rejected ones FAILED, and both
 * still read whole through the gateway with no worker running (the last test stops the worker).
 */
import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { workflowIdForTask } from '../../../src/protocol/contract.js';
import { EXPENSE_REQUEST, useGatewayHarness, userMessage, type Transport } from '../../support/gateway-harness.js';

const harness = useGatewayHarness();

/** Temporal's own status of the task's workflow, as the Temporal UI's list shows it. */
async function temporalStatus(taskId: string): Promise<string> {
  return (await harness.temporal.workflow.getHandle(workflowIdForTask(taskId)).describe()).status.name;
}

/** Tasks that ended, for reading them again once no worker runs. */
const finished: Task[] = [];

describe.each<Transport>(['JSONRPC', 'HTTP+JSON'])('cancel over %s', (transport) => {
  it('cancels a task waiting for input at once; its workflow ends CANCELED', async () => {
    const client = await harness.a2a(transport);
    const task = (await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never)) as Task;
    const canceled = await client.cancelTask({ id: task.id } as never);
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ id: task.id } as never)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect.poll(() => temporalStatus(task.id)).toBe('CANCELLED');
    finished.push(canceled);
  });

  it('cancels a working task once its activity stopped, and refuses to cancel it again', async () => {
    const client = await harness.a2a(transport, 'test-block');
    const task = (await client.sendMessage({
      message: userMessage('block'),
      configuration: { returnImmediately: true },
    } as never)) as Task;
    const canceled = await client.cancelTask({ id: task.id } as never);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ id: task.id } as never)).rejects.toThrow(/cancel/i);
    await expect.poll(() => temporalStatus(task.id)).toBe('CANCELLED');
  });

  it('reports unknown tasks as not found', async () => {
    const client = await harness.a2a(transport);
    await expect(client.cancelTask({ id: 'no-such-task' } as never)).rejects.toThrow(/not found/i);
    await expect(client.getTask({ id: 'no-such-task' } as never)).rejects.toThrow(/not found/i);
  });
});

describe('finished tasks in Temporal', () => {
  it('a denied approval answers rejected with its reason, lists as rejected, and its workflow is FAILED', async () => {
    const client = await harness.a2a('JSONRPC');
    const task = (await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never)) as Task;
    const reply = userMessage('deny', { taskId: task.id, contextId: task.contextId });
    const rejected = (await client.sendMessage({ message: reply } as never)) as Task;
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const reason = rejected.status?.message?.parts[0]?.content;
    expect(reason?.$case === 'text' && reason.value).toMatch(/^Denied/);
    expect(await temporalStatus(task.id)).toBe('FAILED');
    const got = await client.getTask({ id: task.id } as never);
    expect(got.status).toEqual(rejected.status);
    expect(got.history?.length).toBeGreaterThan(1);
    const listed = () =>
      client.listTasks({ contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED } as never);
    await expect.poll(async () => (await listed()).tasks[0]?.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    finished.push(got);
  });

  it('rejected and canceled tasks read whole with no worker running', async () => {
    expect(finished).toHaveLength(3);
    harness.worker.worker.shutdown();
    await expect.poll(() => harness.worker.worker.getState()).toBe('STOPPED');
    const client = await harness.a2a('JSONRPC');
    for (const task of finished) {
      const read = await client.getTask({ id: task.id } as never);
      expect(read.status).toEqual(task.status);
      expect(read.metadata).toEqual(task.metadata);
    }
  });
});
