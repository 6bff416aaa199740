/**
 * The task workflow's patches (Temporal's `patched()`), asked through one door. Each `patched()`
 * a new workflow passes writes a marker and a `TemporalChangeVersion` search attribute upsert to
 * its history: two events per patch, in the same workflow task as the work it guards. A workflow
 * that starts on this release records one marker instead, at its start, and then takes every
 * older patch's new path without a marker of its own; it also has each workflow task's memo and
 * search attribute upserts written as one of each (coalesced-upserts.ts). Older histories replay
 * exactly as they were recorded: without that marker, every patch is asked as before.
 *
 * Module state is per workflow: Temporal's sandbox gives each workflow its own module instances.
 */
import { patched } from '@temporalio/workflow';

const CURRENT_RELEASE_PATCH = 'one-marker-coalesced-upserts';

let startedOnCurrentRelease = false;

/** Called first thing in each run, before any handler runs. */
export function recordRelease(): void {
  startedOnCurrentRelease = patched(CURRENT_RELEASE_PATCH);
}

/** Whether this workflow takes the new path of `patchId`. */
export function hasPatch(patchId: string): boolean {
  return startedOnCurrentRelease || patched(patchId);
}

/** Whether each workflow task's memo and search attribute upserts are written as one of each. */
export function coalescesUpserts(): boolean {
  return startedOnCurrentRelease;
}
