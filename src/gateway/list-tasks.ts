/**
 * ListTasks over Temporal visibility (search attributes). Visibility is eventually consistent: a
 * task created a moment ago may be missing for a second or so.
 */
import type { Client } from '@temporalio/client';
import { TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { workflowIdForTask, type Caller } from '../protocol/contract.js';
import { CONTEXT_ID_ATTRIBUTE, OWNER_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { fromWireState } from '../protocol/states.js';
import { toSdkTask, withoutArtifacts } from './convert.js';
import { temporalCall } from './errors.js';
import type { TaskReader } from './task-reader.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;
const WORKFLOW_ID_PREFIX = workflowIdForTask('');

export async function listTasks(
  client: Client,
  reader: TaskReader,
  agentName: string,
  request: ListTasksRequest,
  caller?: Caller,
): Promise<ListTasksResponse> {
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new RequestMalformedError(`pageSize must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  if (request.historyLength !== undefined && request.historyLength < 0) {
    throw new RequestMalformedError('historyLength must not be negative');
  }
  const query = visibilityQuery(agentName, request, caller);
  const page = await temporalCall(undefined, () =>
    client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize,
      ...(request.pageToken && { nextPageToken: Buffer.from(request.pageToken, 'base64url') }),
    }),
  );
  const after = request.statusTimestampAfter ? Date.parse(request.statusTimestampAfter) : undefined;
  const taskIds = (page.executions ?? [])
    .map((row) => row.execution?.workflowId ?? '')
    .filter((id) => id.startsWith(WORKFLOW_ID_PREFIX))
    .map((id) => id.slice(WORKFLOW_ID_PREFIX.length));
  const tasks = (await Promise.all(taskIds.map((id) => reader.read(id, caller))))
    // Temporal does not index the time of the last status change, so this exact filter runs here.
    .filter((task) => after === undefined || Date.parse(task.status.timestamp) > after)
    .map((task) => toSdkTask(request.includeArtifacts ? task : withoutArtifacts(task), request.historyLength));
  const { count } = await temporalCall(undefined, () => client.workflow.count(query));
  const token =
    page.nextPageToken && page.nextPageToken.length > 0 ? Buffer.from(page.nextPageToken).toString('base64url') : '';
  return { tasks, nextPageToken: token, pageSize, totalSize: count };
}

function visibilityQuery(agentName: string, request: ListTasksRequest, caller: Caller | undefined): string {
  const clauses = [`WorkflowType = ${quote(agentName)}`];
  // An authenticated caller lists its own tasks only, in the query itself (never by filtering a page).
  if (caller) clauses.push(`${OWNER_ATTRIBUTE.name} = ${quote(caller.id)}`);
  if (request.statusTimestampAfter) {
    // Narrows the page: a task whose workflow closed before that time cannot have changed since.
    const after = new Date(request.statusTimestampAfter);
    if (Number.isNaN(after.getTime())) throw new RequestMalformedError('statusTimestampAfter is not a timestamp');
    clauses.push(`(ExecutionStatus = 'Running' OR CloseTime > ${quote(after.toISOString())})`);
  }
  if (request.contextId) clauses.push(`${CONTEXT_ID_ATTRIBUTE.name} = ${quote(request.contextId)}`);
  if (request.status !== TaskState.TASK_STATE_UNSPECIFIED) {
    const state = fromWireState(taskStateToJSON(request.status));
    if (!state) throw new RequestMalformedError(`Unknown task state ${taskStateToJSON(request.status)}`);
    clauses.push(`${TASK_STATE_ATTRIBUTE.name} = ${quote(state)}`);
  }
  return clauses.join(' AND ');
}

function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
