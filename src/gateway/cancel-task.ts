/**
 * CancelTask over Temporal: the task's `cancel` update, then Temporal's own cancellation of its
 * workflow, so that the Temporal UI lists an A2A-canceled task as CANCELED.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { cancelTaskUpdate, workflowIdForTask, type CancelRequest } from '../protocol/contract.js';
import type { WireTask } from '../protocol/wire.js';
import { abortable } from './abortable.js';
import { queryTask } from './task-reader.js';

/**
 * Cancels a task and answers it whole, in `canceled`.
 *
 * The update does the A2A part: its validator refuses a caller who does not own the task and a task
 * already terminal (nothing is asked of Temporal then); its handler records who canceled, cancels
 * the agent's scope and returns once the work has stopped. A workflow ends CANCELED only when the
 * cancellation was requested through Temporal (the SDK decides, and a workflow cannot request it
 * for itself), so the gateway requests it next. Safe against races: after settling, the workflow
 * waits for that request before it closes (task-workflow.ts, `endingForOutcome`), so it cannot end
 * COMPLETED first; meanwhile it still answers the query that reads the whole task. The request is
 * made even when the client has gone or the read failed: the task is canceled either way.
 */
export async function cancelTask(
  client: Client,
  taskId: string,
  request: CancelRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<WireTask> {
  const handle = client.workflow.getHandle(workflowIdForTask(taskId));
  await abortable(client, signal, () => handle.executeUpdate(cancelTaskUpdate, { args: [request] }));
  try {
    return await queryTask(client, handle);
  } finally {
    await handle.cancel().catch((error: unknown) => {
      // A workflow that started before it waited for this request has already closed (COMPLETED).
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
  }
}
