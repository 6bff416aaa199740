/**
 * Task workflows as Temporal visibility lists them (search attributes, the summary memo). Visibility
 * is eventually consistent: a task created a moment ago may be missing for a second or so.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { SUMMARY_MEMO, taskIdOfWorkflow } from '../protocol/contract.js';
import { fromWireState, isTerminal } from '../protocol/states.js';
import type { WireTask } from '../protocol/wire.js';
import { temporalCall } from './errors.js';
import { decodeMemo } from './decode-memo.js';

export interface TaskListRequest {
  /** A visibility query; string literals in it come from `quote`. */
  query: string;
  pageSize: number;
  /** Temporal's `nextPageToken` of the page before. */
  pageToken?: Uint8Array;
  /** Whether rows carry their summary memo (where it is the task as it stands). */
  summaries: boolean;
}

interface ListedTask {
  taskId: string;
  /** The task as it stands, when asked for and current; otherwise read it. */
  summary?: WireTask;
}

export interface TaskListPage {
  tasks: ListedTask[];
  /** Absent on the last page. */
  nextPageToken?: Uint8Array;
  /** How many tasks the whole query matches. */
  total: number;
}

export async function listTaskPage(client: Client, request: TaskListRequest): Promise<TaskListPage> {
  const page = await temporalCall(undefined, () =>
    client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: request.query,
      pageSize: request.pageSize,
      ...(request.pageToken && { nextPageToken: request.pageToken }),
    }),
  );
  const rows = (page.executions ?? []).flatMap((row) => {
    const taskId = taskIdOfWorkflow(row.execution?.workflowId ?? '');
    return taskId === undefined ? [] : [{ row, taskId }];
  });
  const tasks = await Promise.all(
    rows.map(async ({ row, taskId }): Promise<ListedTask> => {
      const summary = request.summaries ? await summaryOf(client, row.memo?.fields) : undefined;
      return summary && summaryStands(row.status, summary) ? { taskId, summary } : { taskId };
    }),
  );
  const { count } = await temporalCall(undefined, () => client.workflow.count(request.query));
  const token = page.nextPageToken;
  return { tasks, ...(token && token.length > 0 && { nextPageToken: token }), total: count };
}

/** A string literal of a visibility query. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const ExecutionStatus = proto.temporal.api.enums.v1.WorkflowExecutionStatus;
const SUMMARY_STATUSES = new Set<number>([
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
]);

/**
 * Whether a row's summary memo is its task as it stands. A task that settled failed or rejected
 * ends its workflow FAILED after writing its summary; a workflow that died any other way
 * (terminated, timed out, failed before settling) left a stale one.
 */
function summaryStands(status: number | null | undefined, summary: WireTask): boolean {
  if (!status || SUMMARY_STATUSES.has(status)) return true;
  const state = fromWireState(summary.status.state);
  return status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED && state !== undefined && isTerminal(state);
}

/** The summary memo of a visibility row; absent on tasks that started before it existed. */
async function summaryOf(
  client: Client,
  fields: Record<string, Payload> | null | undefined,
): Promise<WireTask | undefined> {
  if (!fields?.[SUMMARY_MEMO]) return undefined;
  const memo = await decodeMemo(client.workflow.options.loadedDataConverter, fields);
  return memo[SUMMARY_MEMO] as WireTask | undefined;
}
