/**
 * zod, evaluated once per worker and shared by every workflow. Temporal's sandbox evaluates a
 * bundle's modules again for each new workflow, and zod's were most of that work (~1.7 ms a task,
 * ~0.5 MB a cached task). The worker preloads this module; agent code's zod imports read the
 * entries it leaves in SHARED_MODULES_GLOBAL (src/worker/agents-bundle.ts).
 *
 * The sandbox deep-freezes the modules and globals it preloads, but zod writes to its own state as
 * it works: `lastIndex` on its format regexes, its default locale and memoizer set on first use.
 * So zod is bundled inside this module (scope hoisting: no module of its own that the freeze would
 * walk), reached through a Map (the freeze leaves a Map's entries alone), and the config and
 * registry zod also hangs on `globalThis` (for copies of zod to share) are taken off it (a second,
 * unshared zod in the bundle would put its own there, which this one reads for `postProcessor`).
 *
 * What zod keeps is now the worker's, not one workflow's: schemas are made by each workflow's own
 * code and its parse caches are WeakMaps keyed by them, but its registry keeps, by `.meta({ id })`,
 * the last schema registered under each id, `z.config()` sets options for every task, and its
 * parse memo for recursive schemas keeps module-level scratch that a refinement throwing mid-parse
 * leaves behind (zod 4.6's memoizer.js sets and clears it without try/finally).
 */
import * as zod from 'zod';
import * as zodLocales from 'zod/locales';
import * as zodMini from 'zod/mini';
import * as zodV4 from 'zod/v4';
import * as zodV4Core from 'zod/v4/core';
import * as zodV4Locales from 'zod/v4/locales';
import * as zodV4Mini from 'zod/v4/mini';
import * as zodV4MiniLegacy from 'zod/v4-mini';
import { SHARED_MODULES_GLOBAL, type SharedZodEntry } from './shared-modules-global.js';

const entries: Record<SharedZodEntry, object> = {
  zod,
  'zod/v4': zodV4,
  'zod/mini': zodMini,
  'zod/v4/mini': zodV4Mini,
  'zod/v4-mini': zodV4MiniLegacy,
  'zod/v4/core': zodV4Core,
  'zod/locales': zodLocales,
  'zod/v4/locales': zodV4Locales,
};

const sandbox = globalThis as Record<string, unknown>;
delete sandbox.__zod_globalConfig;
delete sandbox.__zod_globalRegistry;
sandbox[SHARED_MODULES_GLOBAL] = new Map(Object.entries(entries));
