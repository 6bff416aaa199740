/**
 * The task workflow's patches (Temporal's `patched()`), in one place. Each `patched()` a new
 * workflow passes writes a marker and a `TemporalChangeVersion` search attribute upsert to its
 * history: two events per patch, in the same workflow task as the work it guards. A workflow that
 * starts on the release that brought RELEASE_PATCH records that one marker instead, at its start,
 * and takes the new path of every patch before it (PATCH) without a marker of its own; it also has
 * each activation's memo and search attribute upserts written as one of each (coalesced-upserts.ts;
 * a workflow task is usually one activation). Histories recorded before replay exactly as they
 * were: without the release marker, every patch is asked as before.
 *
 * PATCH is closed: a later change is guarded as usual, by `patched()` of its own ID (never added
 * here: a workflow with the release marker did not run it, and would take it on replay). A later
 * release may fold it into a marker of its own, and must still call `patched(RELEASE_PATCH)`.
 * Agent code should not use local activities: Core's replay may resolve one in the activation of
 * the workflow task's other jobs, and a merged upsert would then not match the history.
 * Records the marker only where the coalescing interceptor is bundled (it calls
 * `coalescingInstalled`), so a bundle without it keeps writing what it replays.
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
let coalescing = false;

/** Called by the coalescing interceptor when Temporal builds this workflow's interceptors. */
export function coalescingInstalled(): void {
  coalescing = true;
}

/** Called first thing in each run, before any handler runs. */
export function recordRelease(): void {
  startedOnRelease = coalescing && patched(RELEASE_PATCH);
}

/** Whether this workflow takes the new path of a patch folded into the release marker. */
export function hasPatch(patchId: FoldedPatch): boolean {
  return startedOnRelease || patched(patchId);
}

/** Whether each activation's memo and search attribute upserts are written as one of each. */
export function coalescesUpserts(): boolean {
  return startedOnRelease;
}
