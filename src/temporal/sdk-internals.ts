/**
 * The Temporal SDK's internals (`@temporalio/<package>/lib/...`) that Node code uses, in one file;
 * those workflow code may use too are in src/protocol/temporal-sdk-compat.ts, which must stay safe in
 * the sandbox (this one need not: it is never bundled into workflows).
 * Written against @temporalio/* 1.24.0, the version package.json pins: on an upgrade, read this file
 * first, and replace what the new version exports publicly (test/unit/temporal/sdk-internals.test.ts).
 */

import type { EventEmitter } from 'node:events';
import type { Worker } from '@temporalio/worker';
import type { RemoveFromCache } from '@temporalio/worker/lib/replay.js';

export { EvictionReason } from '@temporalio/worker/lib/replay.js';

/** A History from the JSON the Temporal CLI and UI export (enum names, camelCase): check-deploy's files. */
export { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';

/** Typed search attributes from a visibility row's indexed fields (the client decodes only its own reads). */
export { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';

/**
 * The evictions a Worker hears from Core, each with its reason (a nondeterminism among them) and
 * Core's message: the SDK emits them for its replayer on a protected member, which a running worker
 * has too (divergence-reports.ts listens there to say why it failed a task).
 */
export function workflowEvictions(worker: Worker): EventEmitter<{ eviction: [WorkflowEviction] }> {
  return (worker as unknown as { evictionsEmitter: EventEmitter<{ eviction: [WorkflowEviction] }> }).evictionsEmitter;
}

export interface WorkflowEviction {
  runId: string;
  evictJob: RemoveFromCache;
}
