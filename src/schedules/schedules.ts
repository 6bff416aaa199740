/**
 * The config's scheduled tasks as Temporal Schedules: each run starts an ordinary task workflow of
 * its agent, as the gateway starts one (protocol/task-start.ts), with the schedule's message as
 * the task's first message and its owner as the task's owner; asking for signed receipts when the
 * worker that makes the Schedules has the key (ReceiptRequest). The Schedules this project manages
 * carry a memo naming its task queue; reconciling never touches any other.
 */
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOptions,
  type ScheduleOverlapPolicy,
} from '@temporalio/client';
import type { CheckedSchedule } from '../config/schedules.js';
import type { ScheduleOverlap } from '../config/define-config.js';
import type { IncomingMessage, ReceiptRequest, ScheduledTaskInput } from '../protocol/contract.js';
import { taskStartOptions } from '../protocol/task-start.js';

const SCHEDULE_ID_PREFIX = 'a2a-schedule-';
/** Memo key of the Schedules this runtime manages (a Schedule's memo is set once, when it is made). */
const MARKER_MEMO = 'a2aSchedule';

interface ScheduleMarker {
  taskQueue: string;
  id: string;
}

/** The Temporal Schedule ID of a config schedule's ID. */
export function scheduleIdOf(id: string): string {
  return `${SCHEDULE_ID_PREFIX}${id}`;
}

/**
 * The ID each run's task starts from: Temporal appends the run's time to the workflow ID, so a
 * run of `daily` at 9:00 is task `schedule-daily-2026-11-28T09:00:00Z`.
 */
function scheduledTaskIdPrefix(id: string): string {
  return `schedule-${id}`;
}

/** The Schedule for a config schedule on `taskQueue`; its tasks ask for what `request` says. */
export function scheduleOptions(
  schedule: CheckedSchedule,
  taskQueue: string,
  request: ReceiptRequest = {},
): ScheduleOptions {
  const { id, agent, every, cron, message, owner, overlap } = schedule;
  // The owner as the authenticated caller of a first message: the task is theirs, as one they sent.
  const first: IncomingMessage = { text: message, responder: owner, caller: { id: owner, groups: [] }, agent };
  const input: ScheduledTaskInput = { firstMessage: first, ...request };
  const marker: ScheduleMarker = { taskQueue, id };
  return {
    scheduleId: scheduleIdOf(id),
    spec:
      every !== undefined ? { intervals: [{ every: every as `${number} ${string}` }] } : { cronExpressions: [cron!] },
    action: {
      type: 'startWorkflow',
      workflowType: agent,
      args: [input],
      ...taskStartOptions({ agent, taskQueue, taskId: scheduledTaskIdPrefix(id), first }),
      // What the config said, for the Temporal UI; it also tells a changed spec or policy (see `changed`).
      staticDetails: `Scheduled task \`${id}\` (a2a-temporal config): ${every ? `every ${every}` : `cron ${cron}`}, overlap ${overlap}`,
    },
    policies: { overlap: overlapPolicy(overlap) },
    memo: { [MARKER_MEMO]: marker },
  };
}

export interface ReconcileResult {
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: string[];
}

/**
 * Makes the Schedules of `taskQueue` what the config says: adds the missing, updates the changed
 * (keeping whether an operator paused them), deletes the ones the config no longer names. Safe to
 * repeat, and to run from several workers at once. A key added or removed changes every Schedule's
 * input (`request`), so they are updated.
 */
export async function reconcileSchedules(
  client: Client,
  taskQueue: string,
  schedules: readonly CheckedSchedule[],
  request: ReceiptRequest = {},
): Promise<ReconcileResult> {
  const result: ReconcileResult = { added: [], changed: [], removed: [], unchanged: [] };
  for (const schedule of schedules) {
    const wanted = scheduleOptions(schedule, taskQueue, request);
    const handle = client.schedule.getHandle(wanted.scheduleId);
    const current = await describeOrNone(handle);
    if (!current) {
      const made = await client.schedule.create(wanted).then(
        () => true,
        (error: unknown) => {
          // Another worker made it meanwhile.
          if (error instanceof ScheduleAlreadyRunning) return false;
          throw error;
        },
      );
      result[made ? 'added' : 'unchanged'].push(schedule.id);
      continue;
    }
    const marker = markerOf(current.memo);
    if (marker?.taskQueue !== taskQueue) {
      throw new Error(
        `Temporal Schedule ${wanted.scheduleId} exists and is not this project's (task queue ${taskQueue}): ` +
          `rename schedule "${schedule.id}" in the config, or delete that Schedule`,
      );
    }
    if (!changed(current, wanted)) {
      result.unchanged.push(schedule.id);
      continue;
    }
    await handle.update((previous) => ({
      ...previous,
      spec: wanted.spec,
      action: wanted.action,
      policies: wanted.policies,
    }));
    result.changed.push(schedule.id);
  }
  const wantedIds = new Set(schedules.map((schedule) => schedule.id));
  for (const { id } of await managedSchedules(client, taskQueue)) {
    if (wantedIds.has(id)) continue;
    await client.schedule
      .getHandle(scheduleIdOf(id))
      .delete()
      .catch((error: unknown) => {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      });
    result.removed.push(id);
  }
  return result;
}

export interface ManagedSchedule {
  id: string;
  taskQueue: string;
  agent: string;
  paused: boolean;
  note?: string;
  nextRun?: Date;
  /** The workflow ID of the latest run. */
  lastRun?: { at: Date; workflowId: string };
}

/** The Schedules a2a-temporal manages in the namespace, of one task queue or of all; from visibility (eventually consistent). */
export async function managedSchedules(client: Client, taskQueue?: string): Promise<ManagedSchedule[]> {
  const found: ManagedSchedule[] = [];
  for await (const summary of client.schedule.list()) {
    const marker = markerOf(summary.memo);
    if (!marker || (taskQueue !== undefined && marker.taskQueue !== taskQueue)) continue;
    const last = summary.info.recentActions.at(-1);
    const nextRun = summary.info.nextActionTimes[0];
    found.push({
      id: marker.id,
      taskQueue: marker.taskQueue,
      agent: summary.action?.workflowType ?? '',
      paused: summary.state.paused,
      ...(summary.state.note && { note: summary.state.note }),
      ...(nextRun && { nextRun }),
      ...(last && { lastRun: { at: last.takenAt, workflowId: last.action.workflow.workflowId } }),
    });
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

/** The handle of a Schedule this runtime manages, by its config ID; undefined when there is none. */
export async function managedScheduleHandle(client: Client, id: string): Promise<ScheduleHandle | undefined> {
  const handle = client.schedule.getHandle(scheduleIdOf(id));
  const description = await describeOrNone(handle);
  return description && markerOf(description.memo) ? handle : undefined;
}

/** Whether the Schedule starts something else than `wanted` would: agent, queue, message, owner, spec or policy. */
function changed(current: ScheduleDescription, wanted: ScheduleOptions): boolean {
  const { action } = current;
  const shape = (a: { workflowType: unknown; taskQueue?: unknown; args?: unknown; staticDetails?: unknown }) =>
    JSON.stringify([a.workflowType, a.taskQueue, a.args, a.staticDetails]);
  return (
    shape(action) !== shape({ ...wanted.action, workflowType: String(wanted.action.workflowType) }) ||
    current.policies.overlap !== wanted.policies?.overlap
  );
}

async function describeOrNone(handle: ScheduleHandle): Promise<ScheduleDescription | undefined> {
  try {
    return await handle.describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  }
}

function markerOf(memo: Record<string, unknown> | undefined): ScheduleMarker | undefined {
  const marker = memo?.[MARKER_MEMO] as Partial<ScheduleMarker> | undefined;
  return typeof marker?.taskQueue === 'string' && typeof marker.id === 'string'
    ? { taskQueue: marker.taskQueue, id: marker.id }
    : undefined;
}

function overlapPolicy(overlap: ScheduleOverlap): ScheduleOverlapPolicy {
  return overlap.toUpperCase().replace(/-/g, '_') as ScheduleOverlapPolicy;
}
