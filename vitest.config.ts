import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The examples import the package by its public name, as a user's project does; here it is the source.
    alias: [
      { find: /^a2a-temporal$/, replacement: src('index.ts') },
      { find: /^a2a-temporal\/activity$/, replacement: src('activity-helpers/index.ts') },
      { find: /^a2a-temporal\/(worker|gateway|testing)$/, replacement: src('$1/index.ts') },
    ],
  },
  test: {
    // The Temporal native runtime crashes under worker threads.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // Logs of the code under test stay quiet unless something is wrong.
    env: { LOG_LEVEL: 'warn' },
    // `npm test` runs both; `vitest run --project unit` (npm run test:unit) the quick loop. A test's
    // folder says which it is (docs/contributing.md): test/unit needs no Temporal server, starts no
    // processes and bundles no workflows; test/integration has the run's dev server, and so does a
    // test file placed outside both, which then still runs.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/unit/**'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
