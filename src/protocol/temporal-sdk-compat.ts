/**
 * Every use of the Temporal SDK's internals (`@temporalio/<package>/lib/...`), in one file: the
 * rest of src imports public exports only (test/unit/temporal/sdk-internals.test.ts checks both).
 * Written against @temporalio/* 1.24.0, the version package.json pins: on an upgrade, read this file
 * first, and replace what the new version exports publicly. Workflow and Node code both import it,
 * so it must stay safe in Temporal's deterministic sandbox (no Node modules).
 */

/**
 * A Duration (`'2 days'`, or milliseconds) in milliseconds, parsed exactly as the SDK parses the
 * same value for a timer, so a deadline shown to people matches the timer that enforces it. The
 * public index exports it only as hidden and deprecated ("meant for internal use only").
 */
export { msToNumber } from '@temporalio/common/lib/time.js';
