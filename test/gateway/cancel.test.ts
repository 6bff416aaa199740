/** CancelTask on working, waiting and finished tasks; GetTask of a canceled task. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { EXPENSE_REQUEST, startHarness, userMessage, type Harness, type Transport } from './harness.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe.each<Transport>(['JSONRPC', 'HTTP+JSON'])('cancel over %s', (transport) => {
  it('cancels a task waiting for input at once', async () => {
    const client = await harness.a2a(transport);
    const task = (await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never)) as Task;
    const canceled = await client.cancelTask({ id: task.id } as never);
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ id: task.id } as never)).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
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
  });

  it('reports unknown tasks as not found', async () => {
    const client = await harness.a2a(transport);
    await expect(client.cancelTask({ id: 'no-such-task' } as never)).rejects.toThrow(/not found/i);
    await expect(client.getTask({ id: 'no-such-task' } as never)).rejects.toThrow(/not found/i);
  });
});
