/**
 * ListTasks over Temporal visibility (search attributes). Visibility is eventually consistent: a
 * task created a moment ago may be missing for a second or so.
 */
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
// The client's own decoding of memo payloads (with its data converter and codecs); the public index does not export it.
import { decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import { SUMMARY_MEMO, workflowIdForTask, type Caller } from '../protocol/contract.js';
import { idProblem } from '../protocol/message-checks.js';
import type { WireTask } from '../protocol/wire.js';
import { CONTEXT_ID_ATTRIBUTE, OWNER_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { fromWireState, isTerminal } from '../protocol/states.js';
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
  // Everything a client sent is checked before the first call: Temporal answers a query or a token
  // it cannot parse with an internal error, which its client retries for some 20 s.
  const after = timestampAfter(request.statusTimestampAfter);
  const contextProblem = request.contextId ? idProblem(request.contextId, 'contextId') : undefined;
  if (contextProblem) throw new RequestMalformedError(contextProblem);
  const query = visibilityQuery(agentName, request, after, caller);
  const pageToken = request.pageToken ? decodePageToken(request.pageToken) : undefined;
  const page = await temporalCall(undefined, () =>
    client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize,
      ...(pageToken && { nextPageToken: pageToken }),
    }),
  );
  // Without history and artifacts a row's summary memo is the task: no call per listed task.
  const summaryOnly = request.historyLength === 0 && !request.includeArtifacts;
  const rows = (page.executions ?? []).filter((row) => row.execution?.workflowId?.startsWith(WORKFLOW_ID_PREFIX));
  const read = async (row: (typeof rows)[number]): Promise<WireTask> => {
    const summary = summaryOnly ? await summaryOf(client, row.memo?.fields) : undefined;
    const current = summary && summaryStands(row.status, summary);
    return current ? summary : reader.read(row.execution!.workflowId!.slice(WORKFLOW_ID_PREFIX.length), caller);
  };
  const tasks = (await Promise.all(rows.map(read)))
    // Temporal does not index the time of the last status change, so this exact filter runs here.
    .filter((task) => after === undefined || Date.parse(task.status.timestamp) > after.getTime())
    .map((task) => toSdkTask(request.includeArtifacts ? task : withoutArtifacts(task), request.historyLength));
  const { count } = await temporalCall(undefined, () => client.workflow.count(query));
  const token = page.nextPageToken && page.nextPageToken.length > 0 ? encodePageToken(page.nextPageToken) : '';
  return { tasks, nextPageToken: token, pageSize, totalSize: count };
}

/** A timestamp Temporal's query parser reads: google.protobuf.Timestamp's range, years 0001 to 9999. */
function timestampAfter(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const after = new Date(text);
  const year = after.getUTCFullYear();
  if (Number.isNaN(after.getTime()) || year < 1 || year > 9999) {
    throw new RequestMalformedError('statusTimestampAfter must be a timestamp such as 2025-01-31T12:00:00Z');
  }
  return after;
}

/**
 * A page token is Temporal's visibility token (opaque bytes) and a digest of it, so that a garbled,
 * truncated or invented token is refused here instead of by Temporal. The digest is no secret: it
 * only tells our tokens from others. It does not bind the token to its filters: clients may change
 * them between pages (Temporal's token is a position in the listing order, whatever the filters).
 */
function encodePageToken(temporalToken: Uint8Array): string {
  const body = Buffer.from(temporalToken).toString('base64url');
  return `${body}.${tokenDigest(body)}`;
}

function decodePageToken(token: string): Buffer {
  const [body = '', digest, ...rest] = token.split('.');
  if (rest.length > 0 || !/^[\w-]+$/.test(body) || digest !== tokenDigest(body)) {
    throw new RequestMalformedError('pageToken is not the nextPageToken of a previous page');
  }
  return Buffer.from(body, 'base64url');
}

function tokenDigest(body: string): string {
  return createHash('sha256').update(`a2a-temporal page token\n${body}`).digest('base64url').slice(0, 22);
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
  const memo = await decodeMapFromPayloads(client.workflow.options.loadedDataConverter, fields);
  return memo?.[SUMMARY_MEMO] as WireTask | undefined;
}

function visibilityQuery(
  agentName: string,
  request: ListTasksRequest,
  after: Date | undefined,
  caller: Caller | undefined,
): string {
  const clauses = [`WorkflowType = ${quote(agentName)}`];
  // An authenticated caller lists its own tasks only, in the query itself (never by filtering a page).
  if (caller) clauses.push(`${OWNER_ATTRIBUTE.name} = ${quote(caller.id)}`);
  // Narrows the page: a task whose workflow closed before that time cannot have changed since.
  if (after) clauses.push(`(ExecutionStatus = 'Running' OR CloseTime > ${quote(after.toISOString())})`);
  if (request.contextId) clauses.push(`${CONTEXT_ID_ATTRIBUTE.name} = ${quote(request.contextId)}`);
  if (request.status !== TaskState.TASK_STATE_UNSPECIFIED) {
    const state = fromWireState(taskStateToJSON(request.status));
    if (!state) throw new RequestMalformedError(`Unknown task state ${taskStateToJSON(request.status)}`);
    clauses.push(`${TASK_STATE_ATTRIBUTE.name} = ${quote(state)}`);
  }
  return clauses.join(' AND ');
}

/** A string literal of a visibility query. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
