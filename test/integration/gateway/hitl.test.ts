/** The expense-approval round trip through the SDK's own client, over each transport. */
import { describe, expect, it } from 'vitest';
import { type Task, TaskState, type Message } from '@a2a-js/sdk';
import { EXPENSE_REQUEST, useGatewayHarness, userMessage, type Transport } from '../../support/gateway-harness.js';

const harness = useGatewayHarness();

function asTask(result: Message | Task): Task {
  expect('status' in result, 'expected a Task, got a Message').toBe(true);
  return result as Task;
}

describe.each<Transport>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('expense approval over %s', (transport) => {
  it('asks for approval, then completes with an approval record', async () => {
    const client = await harness.a2a(transport);
    const first = asTask(await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(first.contextId).not.toBe('');
    const question = first.status?.message?.parts[0]?.content;
    expect(question?.$case === 'text' && question.value).toContain('120 USD');

    // taskId only: the context is inferred from the task.
    const done = asTask(await client.sendMessage({ message: userMessage('approve', { taskId: first.id }) } as never));
    expect(done.id).toBe(first.id);
    expect(done.contextId).toBe(first.contextId);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const record = done.artifacts[0]?.parts[0]?.content;
    expect(record?.$case).toBe('data');
    expect(record?.$case === 'data' && record.value).toMatchObject({
      amount: 120,
      currency: 'USD',
      decision: 'approved',
    });

    const read = await client.getTask({ id: first.id, historyLength: 1 } as never);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(read.history.length).toBeLessThanOrEqual(1);
    expect(read.artifacts).toHaveLength(1);
  });
});
