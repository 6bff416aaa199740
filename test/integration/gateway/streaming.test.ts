/** Streams: order, closure at settled states, subscriptions, and direct-message answers. */
import { describe, expect, it } from 'vitest';
import { StreamResponse, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { EXPENSE_REQUEST, useGatewayHarness, userMessage, type Transport } from '../../support/gateway-harness.js';

const harness = useGatewayHarness();

async function drain(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function states(events: StreamResponse[]): TaskState[] {
  return events.flatMap((e) => {
    if (e.payload?.$case === 'task') return [e.payload.value.status!.state];
    if (e.payload?.$case === 'statusUpdate') return [e.payload.value.status!.state];
    return [];
  });
}

async function waitingTask(client: Client): Promise<Task> {
  const task = (await client.sendMessage({ message: userMessage(EXPENSE_REQUEST) } as never)) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  return task;
}

describe.each<Transport>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('streams over %s', (transport) => {
  it('starts with the task and closes once the task waits for input, then once it completes', async () => {
    const client = await harness.a2a(transport);
    const first = await drain(client.sendMessageStream({ message: userMessage(EXPENSE_REQUEST) } as never));
    expect(first[0]?.payload?.$case).toBe('task');
    expect(states(first)).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_INPUT_REQUIRED,
    ]);
    const taskId = (first[0]!.payload!.value as Task).id;

    // A follow-up's stream starts from the whole task as read after the answer was applied: what
    // happened before that read is in the snapshot, what happened after it follows as events.
    const second = await drain(client.sendMessageStream({ message: userMessage('approve', { taskId }) } as never));
    const kinds = second.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(states(second).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const snapshot = second[0]!.payload!.value as Task;
    const streamed = second.filter((e) => e.payload?.$case === 'artifactUpdate');
    expect(snapshot.artifacts.length + streamed.length).toBe(1);
    if (streamed.length > 0) {
      // The artifact comes before the final status.
      expect(kinds.indexOf('artifactUpdate')).toBeLessThan(kinds.lastIndexOf('statusUpdate'));
    }
  });

  it('subscribes to a waiting task, sees it complete, and refuses to subscribe to a finished one', async () => {
    const client = await harness.a2a(transport);
    const task = await waitingTask(client);
    const subscription = drain(client.resubscribeTask({ id: task.id } as never));
    await new Promise((r) => setTimeout(r, 300));
    await client.sendMessage({ message: userMessage('approve', { taskId: task.id }) } as never);
    const events = await subscription;
    expect(events[0]?.payload?.$case).toBe('task');
    expect(states(events)[0]).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(states(events).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

    await expect(drain(client.resubscribeTask({ id: task.id } as never))).rejects.toThrow();
  });

  it('answers with only a message when the agent responds with one', async () => {
    // Not the default agent: over gRPC, the card's tenant routes to it.
    const client = await harness.a2a(transport, 'conformance');
    const message = () =>
      userMessage('hello', { messageId: `tck-message-response-${Math.random().toString(16).slice(2)}` });
    const result = await client.sendMessage({ message: message() } as never);
    expect('role' in result && !('status' in result)).toBe(true);
    const events = await drain(client.sendMessageStream({ message: message() } as never));
    expect(events.map((e) => e.payload?.$case)).toEqual(['message']);
  });
});

it('gives two subscribers of a waiting task identical streams', async () => {
  const client = await harness.a2a('JSONRPC');
  const task = await waitingTask(client);
  const a = drain(client.resubscribeTask({ id: task.id } as never));
  const b = drain(client.resubscribeTask({ id: task.id } as never));
  await new Promise((r) => setTimeout(r, 300));
  await client.sendMessage({ message: userMessage('deny', { taskId: task.id }) } as never);
  const [left, right] = await Promise.all([a, b]);
  expect(left.map((e) => StreamResponse.toJSON(e))).toEqual(right.map((e) => StreamResponse.toJSON(e)));
  expect(states(left).at(-1)).toBe(TaskState.TASK_STATE_REJECTED);
});

describe('a new subscription to a waiting task', () => {
  /** Counts the gateway's calls of one Temporal service method (the real calls still go to Temporal). */
  function countCalls(method: 'queryWorkflow' | 'describeWorkflowExecution'): {
    count: () => number;
    stop: () => void;
  } {
    const service = harness.temporal.workflowService;
    const original = service[method] as (...args: unknown[]) => unknown;
    let calls = 0;
    (service as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      calls++;
      return original.apply(service, args);
    };
    return {
      count: () => calls,
      stop: () => void ((service as unknown as Record<string, unknown>)[method] = original),
    };
  }

  it('costs one query (its snapshot), not a read of the events again before anything changed', async () => {
    const client = await harness.a2a('JSONRPC');
    const task = await waitingTask(client);
    const queries = countCalls('queryWorkflow');
    let describes: ReturnType<typeof countCalls> | undefined;
    try {
      const subscription = drain(client.resubscribeTask({ id: task.id } as never));
      await new Promise((r) => setTimeout(r, 500));
      expect(queries.count()).toBe(1);
      describes = countCalls('describeWorkflowExecution');
      await client.sendMessage({ message: userMessage('approve', { taskId: task.id }) } as never);
      expect(states(await subscription).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      // The last events come from the final events memo in the history the feed long-polled.
      expect(describes.count()).toBe(0);
    } finally {
      queries.stop();
      describes?.stop();
    }
  });

  it('sees a reply sent as soon as the subscription is open', async () => {
    const client = await harness.a2a('JSONRPC');
    for (let round = 0; round < 5; round++) {
      const task = await waitingTask(client);
      const subscription = client.resubscribeTask({ id: task.id } as never)[Symbol.asyncIterator]();
      expect((await subscription.next()).value?.payload?.$case).toBe('task');
      await client.sendMessage({ message: userMessage('approve', { taskId: task.id }) } as never);
      const rest: StreamResponse[] = [];
      for (let step = await subscription.next(); !step.done; step = await subscription.next()) rest.push(step.value);
      expect(states(rest).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    }
  });
});
