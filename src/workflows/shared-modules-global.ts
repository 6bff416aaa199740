/**
 * Modules every workflow of a worker shares (src/workflows/shared-zod.ts): the sandbox global that
 * holds them, and the zod entry points it shares, by the specifier workflow code imports.
 */
export const SHARED_MODULES_GLOBAL = '__a2aTemporalSharedModules';

export const SHARED_ZOD_ENTRIES = [
  'zod',
  'zod/v4',
  'zod/mini',
  'zod/v4/mini',
  'zod/v4-mini',
  'zod/v4/core',
  'zod/locales',
  'zod/v4/locales',
] as const;
export type SharedZodEntry = (typeof SHARED_ZOD_ENTRIES)[number];
