import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The Temporal native runtime crashes under worker threads.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // Logs of the code under test stay quiet unless something is wrong.
    env: { LOG_LEVEL: 'warn' },
  },
});
