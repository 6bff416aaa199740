/**
 * ListTasks over Temporal visibility (search attributes; src/tasks/visibility.ts). Visibility
 * is eventually consistent: a task created a moment ago may be missing for a second or so.
 */
import { createHash } from 'node:crypto';
import { TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Caller } from '../../protocol/caller.js';
import { idProblem } from '../../protocol/message-checks.js';
import { CONTEXT_ID_ATTRIBUTE, OWNER_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from '../../protocol/search-attributes.js';
import { fromWireState } from '../../protocol/states.js';
import { toSdkTask, withoutArtifacts } from './convert.js';
import { quote, type TaskWorkflows } from '../../tasks/index.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

export async function listTasks(
  workflows: TaskWorkflows,
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
  const page = await workflows.list({
    query: visibilityQuery(workflows.agent, request, after, caller),
    pageSize,
    ...(request.pageToken && { pageToken: decodePageToken(request.pageToken) }),
    // Without history and artifacts a row's summary memo is the task: no call per listed task.
    summaries: request.historyLength === 0 && !request.includeArtifacts,
  });
  const tasks = (await Promise.all(page.tasks.map((row) => row.summary ?? workflows.read(row.taskId, caller))))
    // Temporal does not index the time of the last status change, so this exact filter runs here.
    .filter((task) => after === undefined || Date.parse(task.status.timestamp) > after.getTime())
    .map((task) => toSdkTask(request.includeArtifacts ? task : withoutArtifacts(task), request.historyLength));
  const token = page.nextPageToken ? encodePageToken(page.nextPageToken) : '';
  return { tasks, nextPageToken: token, pageSize, totalSize: page.total };
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
