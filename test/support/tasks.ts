/** Drives task workflows directly, starting and cancelling them through the gateway's own door to Temporal. */
import {
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionStatusName,
  type WorkflowHandle,
  type WorkflowUpdateFailedError,
} from '@temporalio/client';
import {
  eventsQuery,
  FINAL_TASK_MEMO,
  sendMessageUpdate,
  taskQuery,
  workflowIdForTask,
  type IncomingMessage,
  type MessageAccepted,
  type ReceiptRequest,
} from '../../src/protocol/contract.js';
import { TaskWorkflows } from '../../src/tasks/index.js';
import { isSettled, stateOf, type TaskStateName } from '../../src/protocol/states.js';
import type { WireTask } from '../../src/protocol/wire.js';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestWorker, testClient, type TestWorker } from './worker.js';

export interface StartedTask {
  taskId: string;
  handle: WorkflowHandle;
  accepted: MessageAccepted;
}

/**
 * A new task, started as the gateway starts one (update-with-start, its policies, update ID and
 * search attributes); asking for receipts as a gateway with the receipt key does when `request` says so.
 */
export async function startTask(
  client: Client,
  taskQueue: string,
  agent: string,
  message: IncomingMessage,
  request: ReceiptRequest = {},
): Promise<StartedTask> {
  const { taskId, accepted } = await new TaskWorkflows(client, { agent, taskQueue, ...request }).start(message);
  return { taskId, handle: client.workflow.getHandle(workflowIdForTask(taskId)), accepted };
}

export { stateOf } from '../../src/protocol/states.js';
/**
 * CancelTask as the gateway does it: the `cancel` update, then Temporal's cancellation; the
 * workflow's refusals as Temporal reports them (the gateway turns them into A2A errors).
 */
export { cancelWorkflow as cancelTask } from '../../src/tasks/index.js';

/**
 * Waits for the task's workflow to close; its final task, and Temporal's own status of it (what the
 * UI's list shows): the result of a COMPLETED workflow, the memo of a FAILED or CANCELED one.
 */
export async function finalTask(
  handle: WorkflowHandle,
): Promise<{ task: WireTask; status: WorkflowExecutionStatusName }> {
  const result = await handle.result().catch((error: unknown) => {
    if (error instanceof WorkflowFailedError) return undefined;
    throw error;
  });
  const { status, memo } = await handle.describe();
  return { task: (result ?? memo?.[FINAL_TASK_MEMO]) as WireTask, status: status.name };
}

/** Waits (polling the query; tests only) until the task reaches `state`, or any settled state. */
export async function waitForState(
  handle: WorkflowHandle,
  state?: TaskStateName,
  timeoutMs = 30_000,
): Promise<WireTask> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await handle.query(taskQuery, {});
    const current = stateOf(task);
    if (state ? current === state : isSettled(current)) return task;
    if (Date.now() > deadline) throw new Error(`Task stayed ${current}, expected ${state ?? 'a settled state'}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function reply(handle: WorkflowHandle, message: IncomingMessage, updateId?: string) {
  return handle.executeUpdate(sendMessageUpdate, { args: [message], ...(updateId && { updateId }) });
}

/** Why the task refused an update (the validator's message). */
export async function refusal(update: Promise<unknown>): Promise<string> {
  const error = await update.then(
    () => expect.unreachable('the update was accepted'),
    (failure: unknown) => failure as WorkflowUpdateFailedError,
  );
  return (error.cause as Error | undefined)?.message ?? '';
}

export async function eventsOf(handle: WorkflowHandle) {
  return (await handle.query(eventsQuery, 0)).events;
}

/** The file's test worker and Temporal client, started before its tests and closed after them, and tasks started on them. */
export function useTaskWorker(options: Parameters<typeof startTestWorker>[1] = {}) {
  const started = {} as { worker: TestWorker; client: Client };
  beforeAll(async () => {
    started.worker = await startTestWorker(undefined, options);
    started.client = await testClient();
  });
  afterAll(async () => {
    await started.worker?.shutdown();
    await started.client?.connection.close();
  });
  return {
    get client(): Client {
      return started.client;
    },
    start: (agent: string, message: IncomingMessage) =>
      startTask(started.client, started.worker.taskQueue, agent, message),
  };
}

/** The task's workflow history as text, with its payloads decoded (its JSON holds them in base64): to search, not to parse. */
export async function historyText(handle: WorkflowHandle): Promise<string> {
  return JSON.stringify(await handle.fetchHistory()).replace(/"data":"([A-Za-z0-9+/=]*)"/g, (_, data: string) =>
    Buffer.from(data, 'base64').toString('utf8'),
  );
}
