import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The examples import the package by its public name, as a user's project does; here it is the source.
    alias: [
      { find: /^a2a-temporal$/, replacement: src('index.ts') },
      { find: /^a2a-temporal\/(activity|worker|gateway|testing)$/, replacement: src('$1/index.ts') },
    ],
  },
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
