/**
 * The questions waiting for one caller, across agents, from one visibility listing: the
 * A2AResponders search attribute says who may answer (tasks since release 3), the summary memo of
 * each row says what is asked. No per-row reads. Visibility is eventually consistent: a question
 * asked or answered a second ago may still be missing or listed.
 */
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';
import {
  GROUP_PREFIX,
  isAllowedResponder,
  SUMMARY_MEMO,
  type Caller,
  type PendingQuestion,
} from '../../protocol/contract.js';
import {
  AGENT_ATTRIBUTE,
  OWNER_ATTRIBUTE,
  RESPONDERS_ATTRIBUTE,
  TASK_STATE_ATTRIBUTE,
} from '../../protocol/search-attributes.js';
import type { JsonObject, WireTask } from '../../protocol/wire.js';
import { temporalCall } from '../errors.js';
import { decodeMemo } from './decode-memo.js';
import { quote } from './visibility.js';

/** One waiting question as a list row shows it. */
export interface WaitingQuestionRow {
  taskId: string;
  contextId: string;
  agent: string;
  /** The first words of the request that started the task. */
  request?: string;
  /** Who asked: the task's owner (absent without authentication). */
  askedBy?: string;
  question: Omit<PendingQuestion, 'details'> & { details?: JsonObject };
  /** Why no answer can be taken now, when Temporal reports the task's workflow task failing (blocked by a deploy). */
  blocked?: string;
}

/**
 * Temporal's own flag of a workflow whose workflow task keeps failing or timing out (set after a
 * few failures in a row, 5 by default; cleared by the next success): what its UI's "Task Failures"
 * view lists. Values like "category=WorkflowTaskFailed", "cause=WorkflowTaskFailedCauseNonDeterministicError".
 */
const REPORTED_PROBLEMS = defineSearchAttributeKey('TemporalReportedProblems', SearchAttributeType.KEYWORD_LIST);

export type QuestionOrder = 'deadline' | 'age';

export interface WaitingForRequest {
  /** The authenticated caller; without one (development) every waiting question is listed. */
  caller?: Caller;
  /** The agents served: tasks of others are not listed. */
  agents: readonly string[];
  /** Only this agent's questions. */
  agent?: string;
  /** `deadline`: the soonest deadline first (none last); `age`: the longest waiting first. */
  order?: QuestionOrder;
  /** At most this many rows (one visibility page); `more` says when some were left out. */
  limit?: number;
}

export interface WaitingForPage {
  questions: WaitingQuestionRow[];
  /** Whether more questions wait than the page holds. */
  more: boolean;
}

const WAITING_FOR_MAX_ROWS = 1_000;

/** The questions `caller` may answer now, in one visibility listing. */
export async function questionsWaitingFor(client: Client, request: WaitingForRequest): Promise<WaitingForPage> {
  const limit = Math.min(request.limit ?? WAITING_FOR_MAX_ROWS, WAITING_FOR_MAX_ROWS);
  const agents = request.agent ? request.agents.filter((agent) => agent === request.agent) : request.agents;
  if (agents.length === 0) return { questions: [], more: false };
  const page = await temporalCall(undefined, () =>
    client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: waitingForQuery(agents, request.caller),
      pageSize: limit,
    }),
  );
  const converter = client.workflow.options.loadedDataConverter;
  const rows = await Promise.all(
    (page.executions ?? []).map(async (execution) => {
      const fields = execution.memo?.fields;
      const summary = fields?.[SUMMARY_MEMO] ? (await decodeMemo(converter, fields))[SUMMARY_MEMO] : undefined;
      const row = summary ? rowOf(summary as WireTask) : undefined;
      const blocked = row && blockedReason(execution.searchAttributes?.indexedFields);
      return row && blocked ? { ...row, blocked } : row;
    }),
  );
  const questions = rows.filter((row): row is WaitingQuestionRow => !!row && mayAnswer(row, request.caller));
  const token = page.nextPageToken;
  return { questions: sorted(questions, request.order ?? 'deadline'), more: !!token && token.length > 0 };
}

/**
 * The visibility query: running tasks of these agents waiting for input whose responders include
 * the caller or one of their groups, or whose owner is the caller (a question naming nobody is the
 * owner's; tasks of earlier releases have no responders attribute). Rows are checked again against
 * the question itself (`mayAnswer`), so the owner does not see questions addressed to others.
 */
export function waitingForQuery(agents: readonly string[], caller: Caller | undefined): string {
  const clauses = [
    `ExecutionStatus = 'Running'`,
    `${TASK_STATE_ATTRIBUTE.name} = 'input-required'`,
    `${AGENT_ATTRIBUTE.name} IN (${agents.map(quote).join(', ')})`,
  ];
  if (caller) {
    // Principals and groups are separate namespaces: a principal named `group:...` names no one.
    const names = [
      ...(caller.id.startsWith(GROUP_PREFIX) ? [] : [caller.id]),
      ...caller.groups.map((group) => `${GROUP_PREFIX}${group}`),
    ];
    const ownTasks = `${OWNER_ATTRIBUTE.name} = ${quote(caller.id)}`;
    clauses.push(
      names.length > 0 ? `(${RESPONDERS_ATTRIBUTE.name} IN (${names.map(quote).join(', ')}) OR ${ownTasks})` : ownTasks,
    );
  }
  return clauses.join(' AND ');
}

function rowOf(summary: WireTask): WaitingQuestionRow | undefined {
  const metadata = (summary.metadata ?? {}) as {
    agent?: string;
    owner?: string;
    request?: string;
    pendingQuestion?: WaitingQuestionRow['question'];
  };
  const { agent, owner, request, pendingQuestion } = metadata;
  if (!agent || !pendingQuestion || pendingQuestion.kind !== 'input' || pendingQuestion.outOfBand) return undefined;
  return {
    taskId: summary.id,
    contextId: summary.contextId,
    agent,
    ...(request && { request }),
    ...(owner && { askedBy: owner }),
    question: pendingQuestion,
  };
}

/** Why the row's task is blocked, in the list's words, from Temporal's reported problems; undefined while none is reported. */
function blockedReason(indexedFields: Parameters<typeof decodeTypedSearchAttributes>[0]): string | undefined {
  const problems = decodeTypedSearchAttributes(indexedFields).get(REPORTED_PROBLEMS) ?? [];
  if (problems.includes('cause=WorkflowTaskFailedCauseNonDeterministicError')) {
    return 'the code deployed makes other calls than the task recorded';
  }
  if (problems.includes('category=WorkflowTaskFailed')) return 'its workflow task keeps failing';
  if (problems.includes('category=WorkflowTaskTimedOut')) return 'its workflow task keeps timing out';
  return undefined;
}

/** The same rule the task's workflow applies to a reply (task-runtime.ts), from the row alone. */
function mayAnswer(row: WaitingQuestionRow, caller: Caller | undefined): boolean {
  if (!caller) return true;
  const { responders, notByRequester } = row.question;
  if (!responders) return row.askedBy === undefined || row.askedBy === caller.id;
  return isAllowedResponder(responders, caller) && !(notByRequester && row.askedBy === caller.id);
}

function sorted(rows: WaitingQuestionRow[], order: QuestionOrder): WaitingQuestionRow[] {
  const askedAt = (row: WaitingQuestionRow) => Date.parse(row.question.askedAt);
  const deadline = (row: WaitingQuestionRow) =>
    row.question.deadline ? Date.parse(row.question.deadline) : Number.POSITIVE_INFINITY;
  const byAge = (a: WaitingQuestionRow, b: WaitingQuestionRow) => askedAt(a) - askedAt(b);
  return [...rows].sort(order === 'age' ? byAge : (a, b) => deadline(a) - deadline(b) || byAge(a, b));
}
