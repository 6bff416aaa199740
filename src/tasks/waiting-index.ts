/**
 * Every question waiting on the gateway's agents, kept in memory so that a list page is a filter
 * and a sort of rows at hand, not a visibility listing of every waiting question (which costs the
 * visibility store per row: about 1 ms of the dev server's CPU each, bench/README.md, path 10; and
 * the dev server's SQLite visibility refuses ORDER BY, so a page of the soonest deadlines cannot be
 * asked of it).
 *
 * Kept current by bounded queries, at most once per `freshMs`, only while someone lists:
 * - the questions asked since the last look (`A2AAskedAt`, tasks since release 9), with a margin
 *   for visibility's delay; a task answered that asks again shows here with its new question;
 * - which of the known questions stopped waiting (answered, ended: `WorkflowId IN (...)`, usually
 *   no rows);
 * - which are blocked by a deploy (Temporal reports their workflow task failing; usually no rows),
 *   and so which stopped being blocked;
 * - every FULL_LIST_MS, a listing of them all: what the two above cannot see (tasks of earlier
 *   releases asking again, workflows deleted), and the first time.
 */
import type { Client } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { decodeTypedSearchAttributes } from '../temporal/sdk-internals.js';
import type proto from '@temporalio/proto';
import { SUMMARY_MEMO, taskIdOfWorkflow, workflowIdForTask } from '../protocol/contract.js';
import { ASKED_AT_ATTRIBUTE, TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import type { WireTask } from '../protocol/wire.js';
import { logger } from '../logging.js';
import { temporalCall } from './errors.js';
import { decodeMemo } from './decode-memo.js';
import { quote } from './visibility.js';
import {
  pageOf,
  rowsOf,
  waitingForQuery,
  type WaitingForPage,
  type WaitingForRequest,
  type WaitingQuestionRow,
} from './waiting-for.js';

const log = logger.child({ component: 'inbox' });

/** How far back "asked since the last look" reaches: a question is visible this long after it was asked, at worst. */
const VISIBILITY_MARGIN_MS = 10_000;
/** Every waiting question is listed again this often. */
const FULL_LIST_MS = 5 * 60_000;
/** Rows per visibility page, and workflow IDs per `WorkflowId IN` query. */
const PAGE_ROWS = 1_000;
const STOPPED_WAITING = `(ExecutionStatus != 'Running' OR ${TASK_STATE_ATTRIBUTE.name} != 'input-required')`;

/**
 * Temporal's own flag of a workflow whose workflow task keeps failing or timing out (set after a
 * few failures in a row, 5 by default; cleared by the next success): what its UI's "Task Failures"
 * view lists. Values like "category=WorkflowTaskFailed", "cause=WorkflowTaskFailedCauseNonDeterministicError".
 */
const REPORTED_PROBLEMS = defineSearchAttributeKey('TemporalReportedProblems', SearchAttributeType.KEYWORD_LIST);

type Execution = proto.temporal.api.workflow.v1.IWorkflowExecutionInfo;

export class WaitingQuestions {
  /** Waiting questions by task ID (a task may wait on several). */
  private rows = new Map<string, WaitingQuestionRow[]>();
  /** When the last look began, and the last full listing (ms since the epoch). */
  private lookedAt?: number;
  private fullListAt?: number;
  private looking?: Promise<void>;
  private readonly query: string;

  constructor(
    private readonly client: Client,
    agents: readonly string[],
    private readonly freshMs: number,
    /** Only the tasks on this task queue (the gateway's workers'); default: the agents' on any. */
    taskQueue?: string,
  ) {
    this.query = waitingForQuery(agents, taskQueue);
  }

  /**
   * A page of the questions waiting for `request.caller`, current to within `freshMs`; while every
   * waiting question is listed again (a second or more with 1,000 waiting), pages are served from the
   * rows at hand, as current as the last look.
   */
  async page(request: Omit<WaitingForRequest, 'agents'>): Promise<WaitingForPage> {
    return pageOf(await this.all(), request);
  }

  /** Every waiting question, as current as `page` serves them (the metrics count them). */
  async all(): Promise<WaitingQuestionRow[]> {
    if (this.lookedAt === undefined || Date.now() - this.lookedAt >= this.freshMs) {
      const relisting = this.fullListAt !== undefined && Date.now() - this.fullListAt >= FULL_LIST_MS;
      this.looking ??= this.look().finally(() => (this.looking = undefined));
      if (!relisting) await this.looking;
      else this.looking.catch((error: unknown) => log.warn({ err: error }, 'Listing the waiting questions failed'));
    }
    return [...this.rows.values()].flat();
  }

  private async look(): Promise<void> {
    const began = Date.now();
    if (this.fullListAt === undefined || began - this.fullListAt >= FULL_LIST_MS) {
      const rows = new Map<string, WaitingQuestionRow[]>();
      await this.eachRow(this.query, (taskId, taskRows) => {
        if (taskRows.length > 0) rows.set(taskId, taskRows);
      });
      this.rows = rows;
      this.fullListAt = began;
    } else {
      const since = new Date(this.lookedAt! - VISIBILITY_MARGIN_MS).toISOString();
      // Asked since the last look, or blocked by a deploy now (few rows): one listing for both.
      const recentOrBlocked = `(${ASKED_AT_ATTRIBUTE.name} >= ${quote(since)} OR ${REPORTED_PROBLEMS.name} IS NOT NULL)`;
      const listed = new Set<string>();
      await this.eachRow(`${this.query} AND ${recentOrBlocked}`, (taskId, taskRows) => {
        listed.add(taskId);
        if (taskRows.length > 0) this.rows.set(taskId, taskRows);
        else this.rows.delete(taskId);
      });
      for (const [taskId, taskRows] of this.rows) {
        if (taskRows[0]?.blocked && !listed.has(taskId)) {
          this.rows.set(
            taskId,
            taskRows.map((row) => ({ ...row, blocked: undefined })),
          );
        }
      }
      const known = [...this.rows.keys()].map((taskId) => quote(workflowIdForTask(taskId)));
      for (let start = 0; start < known.length; start += PAGE_ROWS) {
        const ids = known.slice(start, start + PAGE_ROWS).join(', ');
        await this.eachRow(`WorkflowId IN (${ids}) AND ${STOPPED_WAITING}`, (taskId) => this.rows.delete(taskId));
      }
    }
    this.lookedAt = began;
  }

  /** Each row `query` lists, as its task's waiting questions' rows (none: it lists none). */
  private async eachRow(query: string, take: (taskId: string, rows: WaitingQuestionRow[]) => void): Promise<void> {
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await temporalCall(undefined, () =>
        this.client.workflowService.listWorkflowExecutions({
          namespace: this.client.options.namespace,
          query,
          pageSize: PAGE_ROWS,
          ...(nextPageToken && { nextPageToken }),
        }),
      );
      for (const execution of page.executions ?? []) {
        const taskId = taskIdOfWorkflow(execution.execution?.workflowId ?? '');
        if (taskId !== undefined) take(taskId, await this.rowsOf(execution));
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
  }

  private async rowsOf(execution: Execution): Promise<WaitingQuestionRow[]> {
    const fields = execution.memo?.fields;
    if (!fields?.[SUMMARY_MEMO]) return [];
    const memo = await decodeMemo(this.client.workflow.options.loadedDataConverter, fields);
    const rows = rowsOf(memo[SUMMARY_MEMO] as WireTask);
    const blocked = rows.length > 0 && blockedReason(execution.searchAttributes?.indexedFields);
    return blocked ? rows.map((row) => ({ ...row, blocked })) : rows;
  }
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
