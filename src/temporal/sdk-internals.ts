/**
 * The Temporal SDK's internals (`@temporalio/<package>/lib/...`) that Node code uses, in one file;
 * those workflow code may use too are in src/protocol/temporal-sdk-compat.ts, which must stay safe in
 * the sandbox (this one need not: it is never bundled into workflows).
 * Written against @temporalio/* 1.24.0, the version package.json pins: on an upgrade, read this file
 * first, and replace what the new version exports publicly (test/unit/temporal-sdk-pins.test.ts).
 */

/** A History from the JSON the Temporal CLI and UI export (enum names, camelCase): check-deploy's files. */
export { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';

/** Typed search attributes from a visibility row's indexed fields (the client decodes only its own reads). */
export { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes.js';
