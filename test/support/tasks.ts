/** Drives task workflows directly through the Temporal client, the way the gateway does. */
import {
  WithStartWorkflowOperation,
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionStatusName,
  type WorkflowHandle,
} from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import {
  eventsQuery,
  FINAL_TASK_MEMO,
  sendMessageUpdate,
  taskQuery,
  workflowIdForTask,
  type IncomingMessage,
  type MessageAccepted,
} from '../../src/protocol/contract.js';
import { isSettled, stateOf, type TaskStateName } from '../../src/protocol/states.js';
import type { WireTask } from '../../src/protocol/wire.js';

export interface StartedTask {
  taskId: string;
  handle: WorkflowHandle;
  accepted: MessageAccepted;
}

export async function startTask(
  client: Client,
  taskQueue: string,
  agent: string,
  message: IncomingMessage,
): Promise<StartedTask> {
  const taskId = randomUUID();
  const operation = new WithStartWorkflowOperation(agent, {
    workflowId: workflowIdForTask(taskId),
    taskQueue,
    args: [{ taskId, contextId: message.contextId ?? randomUUID() }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  const accepted = await client.workflow.executeUpdateWithStart(sendMessageUpdate, {
    args: [message],
    startWorkflowOperation: operation,
  });
  return { taskId, handle: await operation.workflowHandle(), accepted };
}

export { stateOf } from '../../src/protocol/states.js';
/** CancelTask as the gateway does it: the `cancel` update, then Temporal's cancellation. */
export { cancelTask } from '../../src/gateway/cancel-task.js';

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

export async function eventsOf(handle: WorkflowHandle) {
  return (await handle.query(eventsQuery, 0)).events;
}
