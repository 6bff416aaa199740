/**
 * Preloaded by the worker's workflow sandbox (the bundler's `preloadModules`, see
 * src/worker/agents-plugin.ts): evaluated once per worker and shared by every workflow, instead of
 * evaluated again for each new workflow and kept in each cached one. zod is the LLM agent API's
 * schema library, and was the biggest share of both: about half the CPU of starting a workflow, and
 * most of the memory of each cached one.
 *
 * Shared modules must keep no per-workflow state. zod keeps two module-level objects, its config
 * (locale, memoizer) and its registry of schema metadata (WeakMap and Map entries, which work
 * frozen); the sandbox deep-freezes shared modules once they are loaded, so zod's lazy state is
 * filled here first, and `z.config()` cannot be called from agent code.
 */
import { toJSONSchema, z } from 'zod';

const warmUp = z.object({ text: z.string().min(1) });
warmUp.safeParse({ text: 'x' }); // default locale, memoizer, whether zod may compile parsers
toJSONSchema(warmUp);
