/**
 * Learns that tasks waiting for input changed, for all of them at once: a few visibility lists
 * every couple of seconds instead of one history long-poll per task. A waiting task may not change
 * for days, and Temporal ends a long-poll every ~20 s: a thousand open streams on waiting tasks
 * cost the gateway several percent of a core in renewals and the garbage of their pending calls
 * (bench/README.md, path 5).
 *
 * What changes a waiting task: a message or cancel (through this gateway or, by the gateways' change
 * bus, another one: the gateway's TaskChanges, task-changes.ts, wakes its watchers at once; else a
 * list), its own timers (a deadline), an operator ending
 * its workflow. Each shows in visibility as a state other than waiting, a workflow no longer
 * running, or, when the task was answered and asks again, only as a newer status in the summary
 * memo. Every few seconds one list asks for the first two kinds (usually no rows) and, in the same
 * call, for the summaries of the tasks due a compare: a task newly watched, and every task about
 * once every FULL_CHECK_EVERY lists, a share of them at each list.
 *
 * One watch per gateway, in its TaskChanges, shared by all of its agents (their tasks' workflow IDs
 * are distinct): one list every 2 s, whatever the number of agents.
 */
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { SUMMARY_MEMO, taskIdOfWorkflow, workflowIdForTask } from '../protocol/contract.js';
import { TASK_STATE_ATTRIBUTE } from '../protocol/search-attributes.js';
import { INTERRUPTED_STATES } from '../protocol/states.js';
import type { WireTask, WireTaskStatus } from '../protocol/wire.js';
import { logger } from '../logging.js';
import { decodeMemo } from './decode-memo.js';
import { quote } from './visibility.js';

const log = logger.child({ component: 'gateway' });

/** How often visibility is listed while some task is watched: the delay of a change made elsewhere. */
const WAITING_POLL_MS = 2_000;
/**
 * Every watched task's summary is compared about once every this many lists: a task answered
 * elsewhere that asks again at once shows only there (its new question reaches this gateway's
 * streams up to a minute late). Comparing 1,000 summaries costs ~0.1 s of CPU; a share of them at
 * each list, not all at once: a burst of 1,000 rows a minute made V8 compact its heap each time.
 */
const FULL_CHECK_EVERY = 30;
/** Workflow IDs per list call (the query names each). */
const IDS_PER_LIST = 1_000;
/** Rows of tasks that may have changed: no longer running, or no longer waiting. */
const LEFT_WAITING = `(ExecutionStatus != 'Running' OR ${TASK_STATE_ATTRIBUTE.name} NOT IN (${[...INTERRUPTED_STATES].map(quote).join(', ')}))`;

/**
 * Why a wait ended: the task may have changed (`changed`), or visibility cannot tell for this task
 * (`unwatchable`: it started before tasks kept their summary in a memo). A wait whose signal aborts
 * ends `changed`.
 */
export type WaitingWatchOutcome = 'changed' | 'unwatchable';

interface Waiter {
  known: WireTaskStatus;
  /** The list that last compared its summary; none yet: the next list does. */
  comparedAt?: number;
  /** The summary memo as last listed, when it said nothing new: the next list decodes only a different one. */
  explained?: Uint8Array;
  resolve: (outcome: WaitingWatchOutcome) => void;
}

export class WaitingTaskWatch {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private timer?: NodeJS.Timeout;
  /** Lists so far. */
  private lists = 0;
  /**
   * The watched tasks, IDS_PER_LIST to a list, with the `WorkflowId IN` list naming them: built
   * again only when the tasks watched change (a list every 2 s built anew left garbage enough for a
   * scavenge per list, and a heap compaction a minute).
   */
  private chunks?: { taskIds: string[]; workflowIds: string }[];

  private readonly intervalMs: number;
  private readonly fullCheckEvery: number;
  /** Told when the first task is watched (`true`) and after the last one left (`false`). */
  private readonly onWatching?: (watching: boolean) => void;

  constructor(
    private readonly client: Client,
    options: {
      intervalMs?: number;
      fullCheckEvery?: number;
      /** Told when watching starts and ends (the change bus is listened to only meanwhile). */
      onWatching?: (watching: boolean) => void;
    } = {},
  ) {
    this.intervalMs = options.intervalMs ?? WAITING_POLL_MS;
    this.fullCheckEvery = options.fullCheckEvery ?? FULL_CHECK_EVERY;
    if (options.onWatching) this.onWatching = options.onWatching;
  }

  /** Tasks watched now. */
  get watched(): number {
    return this.waiters.size;
  }

  /**
   * Resolves once `taskId`, last read with status `known`, may have changed; or when `signal`
   * aborts. A false alarm is possible (the caller reads and finds nothing new), a missed change
   * is not.
   */
  changeOf(taskId: string, known: WireTaskStatus, signal: AbortSignal): Promise<WaitingWatchOutcome> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        known,
        resolve: (outcome) => {
          signal.removeEventListener('abort', onAbort);
          this.remove(taskId, waiter);
          resolve(outcome);
        },
      };
      const onAbort = () => waiter.resolve('changed');
      if (signal.aborted) return resolve('changed');
      signal.addEventListener('abort', onAbort, { once: true });
      let set = this.waiters.get(taskId);
      if (!set) {
        set = new Set();
        this.waiters.set(taskId, set);
        this.chunks = undefined;
        if (this.waiters.size === 1) this.onWatching?.(true);
      }
      set.add(waiter);
      this.timer ??= setTimeout(() => void this.poll(), this.intervalMs).unref();
    });
  }

  /** `taskId` is about to change (a message, a cancel, through this gateway or another): its watchers look now. */
  wake(taskId: string): void {
    for (const waiter of this.waiters.get(taskId) ?? []) waiter.resolve('changed');
  }

  private remove(taskId: string, waiter: Waiter): void {
    const set = this.waiters.get(taskId);
    if (!set?.delete(waiter) || set.size > 0) return;
    this.waiters.delete(taskId);
    this.chunks = undefined;
    if (this.waiters.size === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.onWatching?.(false);
    }
  }

  private async poll(): Promise<void> {
    const list = this.lists++;
    const compared = this.dueCompare(list);
    this.chunks ??= this.chunked();
    for (const { taskIds, workflowIds } of this.chunks) {
      const comparedHere = taskIds.filter((taskId) => compared.has(taskId));
      try {
        const rows = await this.listed(workflowIds, comparedHere);
        for (const taskId of taskIds) {
          const row = rows.get(taskId);
          // A task due a compare without a row: its workflow is gone (the row of a closed one says so too).
          if (row || compared.has(taskId)) await this.judgeAll(taskId, row, list);
        }
      } catch (error) {
        // Temporal unreachable for a moment: the next list looks again; nothing is lost meanwhile.
        log.debug({ err: error, tasks: taskIds.length }, 'listing waiting tasks failed');
      }
    }
    // A task watched after the last one left during this list scheduled a list of its own: one loop only.
    clearTimeout(this.timer);
    this.timer = this.waiters.size > 0 ? setTimeout(() => void this.poll(), this.intervalMs).unref() : undefined;
  }

  private chunked(): { taskIds: string[]; workflowIds: string }[] {
    const all = [...this.waiters.keys()];
    const chunks = [];
    for (let i = 0; i < all.length; i += IDS_PER_LIST) {
      const taskIds = all.slice(i, i + IDS_PER_LIST);
      chunks.push({ taskIds, workflowIds: inList(taskIds) });
    }
    return chunks;
  }

  /**
   * The tasks whose summary this list compares: those not compared yet, and of the others, the
   * longest uncompared, as many as it takes to compare each about once every `fullCheckEvery` lists.
   */
  private dueCompare(list: number): Set<string> {
    const due = new Set<string>();
    const overdue: { taskId: string; at: number }[] = [];
    for (const [taskId, waiters] of this.waiters) {
      let at = Infinity;
      for (const waiter of waiters) at = Math.min(at, waiter.comparedAt ?? -Infinity);
      if (at === -Infinity) due.add(taskId);
      else if (list - at >= this.fullCheckEvery) overdue.push({ taskId, at });
    }
    overdue.sort((a, b) => a.at - b.at);
    const share = Math.ceil(this.waiters.size / this.fullCheckEvery);
    for (const { taskId } of overdue.slice(0, share)) due.add(taskId);
    return due;
  }

  /**
   * By task ID, the visibility rows of the tasks `workflowIds` names (an `inList`) that no longer
   * wait (no longer running, or in another state), and of those in `compared` whatever their state,
   * except rows of runs that continued as new.
   */
  private async listed(workflowIds: string, compared: string[]): Promise<Map<string, ListedRow>> {
    const wanted = compared.length > 0 ? `(${LEFT_WAITING} OR WorkflowId IN (${inList(compared)}))` : LEFT_WAITING;
    const page = await this.client.workflowService.listWorkflowExecutions({
      namespace: this.client.options.namespace,
      query: `WorkflowId IN (${workflowIds}) AND ExecutionStatus != 'ContinuedAsNew' AND ${wanted}`,
      pageSize: IDS_PER_LIST,
    });
    const rows = new Map<string, ListedRow>();
    for (const row of page.executions ?? []) {
      const taskId = taskIdOfWorkflow(row.execution?.workflowId ?? '');
      if (taskId === undefined) continue;
      const running = row.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
      rows.set(taskId, { running, summary: row.memo?.fields?.[SUMMARY_MEMO] ?? undefined });
    }
    return rows;
  }

  private async judgeAll(taskId: string, row: ListedRow | undefined, list: number): Promise<void> {
    for (const waiter of this.waiters.get(taskId) ?? []) {
      waiter.comparedAt = list;
      await this.judge(waiter, row);
    }
  }

  /**
   * Wakes `waiter` when its task's workflow no longer runs (no row, or a closed one), or its
   * summary shows a status newer than the one known. An older one is visibility lagging behind
   * the read.
   */
  private async judge(waiter: Waiter, row: ListedRow | undefined): Promise<void> {
    if (!row?.running) return waiter.resolve('changed');
    const listed = row.summary?.data;
    if (!listed) return waiter.resolve('unwatchable');
    if (waiter.explained && Buffer.compare(listed, waiter.explained) === 0) return;
    const memo = await decodeMemo(this.client.workflow.options.loadedDataConverter, {
      [SUMMARY_MEMO]: row.summary!,
    });
    const status = (memo[SUMMARY_MEMO] as WireTask | undefined)?.status;
    if (!status) return waiter.resolve('unwatchable');
    if (isNewer(status, waiter.known)) return waiter.resolve('changed');
    waiter.explained = listed;
  }
}

/** A watched task's visibility row: whether its workflow runs, and its summary memo (absent on tasks older than it). */
interface ListedRow {
  running: boolean;
  summary?: Payload;
}

const ExecutionStatus = proto.temporal.api.enums.v1.WorkflowExecutionStatus;

/** The tasks' workflow IDs as a `WorkflowId IN (...)` list names them. */
function inList(taskIds: string[]): string {
  return taskIds.map((taskId) => quote(workflowIdForTask(taskId))).join(', ');
}

/** Whether `listed` is a later status than `known` (a task's status timestamps never go back). */
function isNewer(listed: WireTaskStatus, known: WireTaskStatus): boolean {
  const at = (status: WireTaskStatus) => (status.timestamp ? Date.parse(status.timestamp) : NaN);
  const [listedAt, knownAt] = [at(listed), at(known)];
  if (Number.isNaN(listedAt) || Number.isNaN(knownAt)) return listed.state !== known.state;
  return listedAt > knownAt || (listedAt === knownAt && listed.state !== known.state);
}
