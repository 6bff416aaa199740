import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks', // Temporal's native worker runtime needs processes, not worker threads
    testTimeout: 60_000,
    hookTimeout: 120_000, // the first test starts a Temporal dev server and bundles the agents
    // A task a test ends rejected or failed on purpose logs a warning: shown only when a test fails
    // (a2a-temporal/testing sends such logs through the console), or always with LOG_LEVEL set.
    silent: process.env.LOG_LEVEL ? false : 'passed-only',
  },
});
