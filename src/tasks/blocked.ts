/**
 * A task whose workflow task keeps failing: the deployed code cannot continue it (a change without
 * `ctx.patched`, or any failure of the workflow code). Temporal then retries the workflow task with
 * a growing gap and refuses Updates ("Workflow Task in failed state"), and a worker that runs the
 * broken code cannot answer queries either. The describe tells it (a pending workflow task on its
 * second attempt or later); the last WorkflowTaskFailed (or TimedOut) event in history tells why:
 * Temporal records the first failure and keeps later attempts out of history.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { DIVERGENCE_SIGNAL, workflowIdForTask, type DivergenceReport } from '../protocol/contract.js';
import { describeDivergence } from '../deploy-check/divergence.js';
import { logger } from '../logging.js';
import { TaskBlockedError } from './errors.js';
import { decodeMemo } from './decode-memo.js';
import type { HistoryEvent } from './history-events.js';

const log = logger.child({ component: 'gateway' });

/** What GetTask shows in `Task.metadata.blocked`, and what a refused answer says. */
export interface BlockedMarker {
  /** Why, in plain words (the divergence the worker reported). */
  reason: string;
  /** Since when the workflow task has been failing (the failing attempts' first schedule). */
  since: string;
  /** The workflow task's attempt now: Temporal retries it with a growing gap. */
  attempt: number;
}

/** How many of the latest history events are read for the failure: it is among the last few. */
const LAST_EVENTS = 20;

/** Whether the describe shows a workflow task that failed at least once and is being retried. */
export function failingWorkflowTask(description: WorkflowExecutionDescription): boolean {
  return description.status.name === 'RUNNING' && (description.raw.pendingWorkflowTask?.attempt ?? 0) > 1;
}

/**
 * The blocked marker of a task whose describe shows a failing workflow task (else undefined), with
 * the reason from the last events of its history. Logged at warn with the task ID: an operator's
 * alert (a deploy broke waiting tasks) that needs no Temporal UI.
 */
export async function blockedMarker(
  client: Client,
  taskId: string,
  description: WorkflowExecutionDescription,
): Promise<BlockedMarker | undefined> {
  if (!failingWorkflowTask(description)) return undefined;
  const pending = description.raw.pendingWorkflowTask!;
  const events = await latestEvents(client, taskId, description.runId);
  const failure = lastFailure(events);
  const since = failure?.eventTime ?? pending.originalScheduledTime;
  const marker: BlockedMarker = {
    reason: failure
      ? await failureWords(client, taskId, description.runId, failure, events)
      : 'its workflow task keeps failing',
    since: since?.seconds ? new Date(Number(since.seconds) * 1000).toISOString() : new Date().toISOString(),
    attempt: pending.attempt ?? 2,
  };
  log.warn({ taskId, agent: description.type, ...marker }, 'task blocked: the deployed code cannot continue it');
  return marker;
}

/**
 * The refusal of a request the blocked task cannot take: what happened, what to do, and `then`,
 * what the caller does once the fix runs (by default: send the refused message again). An Update
 * refused here may still wait in Temporal (one that arrived while the workflow task waited for its
 * next retry) and apply when the fix runs; its ID, derived from the message, makes the resent
 * message land once.
 */
export function blockedError(
  taskId: string,
  marker: BlockedMarker,
  then = 'then send this message again (Temporal may hold it meanwhile: the same message applies once)',
): TaskBlockedError {
  const message =
    `Task ${taskId} is blocked by a deploy: the deployed code cannot continue this task: ${marker.reason}; ` +
    `deploy a fix guarded with \`ctx.patched\` (see docs/deploying.md, "Changing agent code while tasks wait"), ${then}`;
  return new TaskBlockedError(message, marker.reason);
}

/** The last events of a run of the task's workflow, newest first: a failure of its workflow task is among them. */
export async function latestEvents(client: Client, taskId: string, runId: string): Promise<HistoryEvent[]> {
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId: workflowIdForTask(taskId), runId },
    maximumPageSize: LAST_EVENTS,
  });
  return history?.events ?? [];
}

/** The latest workflow task failure or timeout since the last completed workflow task (events newest first). */
export function lastFailure(newestFirst: HistoryEvent[]): HistoryEvent | undefined {
  for (const event of newestFirst) {
    if (event.workflowTaskCompletedEventAttributes) return undefined;
    if (event.workflowTaskFailedEventAttributes || event.workflowTaskTimedOutEventAttributes) return event;
  }
  return undefined;
}

/**
 * The failure in words: for a nondeterminism, the call the deployed code makes differently. The
 * worker that failed it says so best (it replays the history on its own code: see
 * worker/divergence-reports.ts), in a signal that follows the failure; until it has, or when no such
 * worker runs, the words come from Temporal's message and the task's whole history
 * (divergence.ts), which cannot name an inserted activity.
 */
async function failureWords(
  client: Client,
  taskId: string,
  runId: string,
  event: HistoryEvent,
  newestFirst: HistoryEvent[],
): Promise<string> {
  const failed = event.workflowTaskFailedEventAttributes;
  if (!failed) return 'its workflow task timed out (a worker took it and never answered)';
  const reported = await reportedDivergence(client, newestFirst, event);
  if (reported) return reported;
  const message = failed.failure?.message ?? '';
  // The SDK's code prefix goes: Temporal's own words follow it.
  const divergence = /^\[TMPRL1100\] Nondeterminism error: (.*)$/s.exec(message)?.[1];
  if (!divergence) return message || 'its workflow task failed';
  const { events } = await client.workflow.getHandle(workflowIdForTask(taskId), runId).fetchHistory();
  return (
    describeDivergence(events ?? [], divergence) ??
    `the new code makes other calls than the task recorded (${divergence})`
  );
}

/**
 * The words a worker of the build that failed the workflow task `failed` signalled since the last
 * completed workflow task (events newest first); see worker/divergence-reports.ts.
 */
export async function reportedDivergence(
  client: Client,
  newestFirst: HistoryEvent[],
  failed: HistoryEvent,
): Promise<string | undefined> {
  const failedUnder = buildOfFailure(failed, newestFirst);
  for (const event of newestFirst) {
    if (event.workflowTaskCompletedEventAttributes) return undefined;
    const signal = event.workflowExecutionSignaledEventAttributes;
    const payload = signal?.signalName === DIVERGENCE_SIGNAL ? signal.input?.payloads?.[0] : undefined;
    if (!payload) continue;
    const { report } = await decodeMemo(client.workflow.options.loadedDataConverter, { report: payload });
    if ((report as DivergenceReport).buildId === failedUnder) return (report as DivergenceReport).reason;
  }
  return undefined;
}

/** The build a failed workflow task ran under, when Temporal recorded it (the SDK's bundle hash or the Worker Versioning build ID). */
export function buildOfFailure(failed: HistoryEvent, newestFirst: HistoryEvent[]): string | undefined {
  return startedEventOf(failed, newestFirst)?.workflowTaskStartedEventAttributes?.workerVersion?.buildId || undefined;
}

/** The WorkflowTaskStarted event of a failed workflow task, when it is the event just before (where a reset can go). */
export function startedEventOf(failed: HistoryEvent, newestFirst: HistoryEvent[]): HistoryEvent | undefined {
  const startedId =
    failed.workflowTaskFailedEventAttributes?.startedEventId ??
    failed.workflowTaskTimedOutEventAttributes?.startedEventId;
  if (!startedId || eventNumber(startedId) !== eventNumber(failed.eventId) - 1) return undefined;
  return newestFirst.find((event) => eventNumber(event.eventId) === eventNumber(startedId));
}

/** An event ID as a number (a protobuf Long, which `Number()` cannot read). */
function eventNumber(id: HistoryEvent['eventId']): number {
  return Number(id?.toString());
}
