/**
 * Across gateways: an answer sent through one gateway wakes the watchers another gateway holds on
 * the waiting task through the gateways' change bus (src/tasks/change-bus.ts), not
 * at its next visibility list. In process with the lists turned off, then with two real gateway
 * processes. No timing is asserted (benchmarks measure it: `npm run bench -- --paths 9`).
 */
import { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { changeBusWorkflowId } from '../../../src/tasks/change-bus.js';
import { TaskChanges, TaskWorkflows } from '../../../src/tasks/index.js';
import type { WireTaskStatus } from '../../../src/protocol/wire.js';
import { rpc } from '../../support/product-processes.js';
import { startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { EXPENSE_REQUEST, useGatewayHarness } from '../../support/gateway-harness.js';
import { sseRpc } from '../../support/sse.js';

const harness = useGatewayHarness();
const processes: GatewayProcess[] = [];
const gateways: TaskChanges[] = [];
afterAll(async () => {
  for (const changes of gateways) changes.close();
  await Promise.all(processes.map((p) => p.kill('SIGKILL')));
});

function message(text: string, taskId?: string) {
  return { messageId: randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...(taskId && { taskId }) };
}

async function waitingTask(): Promise<{ taskId: string; status: WireTaskStatus }> {
  const workflows = new TaskWorkflows(harness.temporal, {
    agent: 'expense-approval',
    taskQueue: harness.worker.taskQueue,
  });
  const { taskId } = await workflows.start({ ...message(EXPENSE_REQUEST), untilSettled: true });
  const { task } = await workflows.snapshot(taskId);
  expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return { taskId, status: task.status };
}

/** A gateway's changes whose waiting watch never lists visibility (within a test): only the bus can wake it. */
function busOnlyChanges(taskQueue: string, client: Client = harness.temporal): TaskChanges {
  const changes = new TaskChanges(client, { agents: ['expense-approval'], taskQueue, waitingListMs: 3_600_000 });
  gateways.push(changes);
  return changes;
}

/** Task IDs the bus's current run was signalled with. */
async function signalledTaskIds(taskQueue: string): Promise<string[]> {
  const history = await harness.temporal.workflow.getHandle(changeBusWorkflowId(taskQueue)).fetchHistory();
  const converter = harness.temporal.options.loadedDataConverter.payloadConverter;
  return (history.events ?? []).flatMap((event) => {
    const payload = event.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0];
    return payload ? (converter.fromPayload<{ taskIds: string[] }>(payload).taskIds ?? []) : [];
  });
}

describe('the gateways change bus', () => {
  it("wakes another gateway's watcher of a waiting task when this one is about to change it", async () => {
    // A task queue of its own: a bus of its own, which the first watcher starts.
    const taskQueue = `change-bus-${randomUUID()}`;
    const { taskId, status } = await waitingTask();
    const holding = busOnlyChanges(taskQueue).waiting;
    const sending = busOnlyChanges(taskQueue, new Client({ connection: harness.temporal.connection }));
    const stop = new AbortController();
    const change = holding.changeOf(taskId, status, stop.signal);
    // The listener starts the bus; a signal sent before it runs is dropped (the lists would see the change).
    await expect
      .poll(() => harness.temporal.workflow.getHandle(changeBusWorkflowId(taskQueue)).describe())
      .toBeTruthy();
    const other = holding.changeOf(randomUUID(), status, stop.signal);
    await expect
      .poll(
        async () => {
          sending.willChange(taskId);
          return Promise.race([change, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000))]);
        },
        { timeout: 20_000, interval: 10 },
      )
      .toBe('changed');
    expect(await signalledTaskIds(taskQueue)).toContain(taskId);
    // Only the task named: the other watcher still waits.
    expect(holding.watched).toBe(1);
    stop.abort();
    expect(await other).toBe('changed');
  });

  it('a stream on one gateway process ends with the answer sent through another, which signalled the bus', async () => {
    const taskQueue = harness.worker.taskQueue;
    const gateway = async () => {
      const started = await startGatewayProcess(taskQueue);
      processes.push(started);
      return started;
    };
    const [a, b] = await Promise.all([gateway(), gateway()]);
    const { taskId } = await waitingTask();
    const states: string[] = [];
    const streamed = (async () => {
      for await (const event of sseRpc(`${a.url}/agents/expense-approval`, 'SubscribeToTask', { id: taskId })) {
        const state = event.task?.status?.state ?? event.statusUpdate?.status?.state;
        if (state) states.push(state);
      }
    })();
    await expect.poll(() => states.length, { timeout: 20_000 }).toBeGreaterThan(0);
    // Gateway A listens to the bus once its feed watches the waiting task.
    await expect
      .poll(() => harness.temporal.workflow.getHandle(changeBusWorkflowId(taskQueue)).describe(), {
        timeout: 20_000,
      })
      .toBeTruthy();
    const answer = await rpc(`${b.url}/agents/expense-approval`, 'SendMessage', {
      message: message('approve', taskId),
    });
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await streamed;
    expect(states[0]).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    await expect.poll(() => signalledTaskIds(taskQueue), { timeout: 10_000 }).toContain(taskId);
  });
});
