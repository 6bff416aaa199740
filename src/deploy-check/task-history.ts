/**
 * What a deploy check replays: one task's history with what the report says about the task. A
 * history comes from Temporal (the SDK's History) or from a file (JSON, as Temporal's tools or
 * `saveTaskHistory` wrote it, read into the SDK's History).
 */
import type { temporal } from '@temporalio/proto';
import type { TaskStateName } from '../protocol/states.js';

export interface TaskHistory {
  /** The workflow ID the task ran under (the replay gives it to the workflow again). */
  workflowId: string;
  /** The A2A task ID, or where the history came from (a file) when it is not a task workflow's. */
  taskId: string;
  /** The agent: the workflow type. */
  agent: string;
  /** The task's state as visibility had it; unknown for a file. */
  state?: TaskStateName;
  history: temporal.api.history.v1.IHistory;
}
