import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    pool: 'forks', // Temporal's native worker runtime needs processes, not worker threads
    testTimeout: 60_000,
    hookTimeout: 120_000, // the first test starts a Temporal dev server and bundles the agents
  },
});
