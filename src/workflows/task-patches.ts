/**
 * The task workflow's patches (Temporal's `patched()`), in one place. Each `patched()` a new
 * workflow passes writes a marker and a `TemporalChangeVersion` search attribute upsert to its
 * history: two events per patch, in the same workflow task as the work it guards. A workflow that
 * starts on the release that brought RELEASE_PATCH records that one marker instead, at its start,
 * and takes the new path of every patch before it (PATCH) without a marker of its own; it also has
 * each workflow task's memo and search attribute upserts written as one of each
 * (coalesced-upserts.ts). Histories recorded before replay exactly as they were: without the
 * release marker, every patch is asked as before.
 *
 * A later change is guarded as usual, by `patched()` of its own ID (never `hasPatch`: a workflow
 * with the release marker did not run it); a later release may fold it in the same way.
 *
 * Module state is per workflow: Temporal's sandbox gives each workflow its own module instances.
 */
import { patched } from '@temporalio/workflow';

/** The patches folded into the release marker. */
export const PATCH = {
  /** Histories that deliver push notifications (workflows before it never had a config). */
  pushNotifications: 'push-notifications',
  /** Deliveries try once, record a failure in the task, then retry for the day. */
  pushFailuresShown: 'push-failures-shown',
  /** A config deleted while one of its notifications was under way. */
  pushConfigReplaced: 'push-config-replaced',
  /** A message can wait for the task to settle, and is answered with it. */
  settledAnswer: 'settled-answer',
  /** The summary memo that ListTasks reads. */
  summaryMemo: 'summary-memo',
  /** The final events memo of a closed workflow. */
  finalEventsMemo: 'final-events-memo',
  /** Temporal's status tells the A2A outcome (FAILED, CANCELED); before, every ending was COMPLETED. */
  temporalStatusForOutcome: 'temporal-status-for-outcome',
} as const;

type FoldedPatch = (typeof PATCH)[keyof typeof PATCH];

const RELEASE_PATCH = 'one-marker-coalesced-upserts';

let startedOnRelease = false;

/** Called first thing in each run, before any handler runs. */
export function recordRelease(): void {
  startedOnRelease = patched(RELEASE_PATCH);
}

/** Whether this workflow takes the new path of a patch folded into the release marker. */
export function hasPatch(patchId: FoldedPatch): boolean {
  return startedOnRelease || patched(patchId);
}

/** Whether each workflow task's memo and search attribute upserts are written as one of each. */
export function coalescesUpserts(): boolean {
  return startedOnRelease;
}
