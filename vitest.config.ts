import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/**
 * Tests that need no Temporal server, start no processes and bundle no workflows: `npm run test:unit`
 * runs only these, in seconds. Every other test file is an integration test, with the run's dev server
 * (test/global-setup.ts); test/unit/sandbox-imports.test.ts is one too, for its Temporal bundles (~40 s).
 */
const UNIT_TESTS = [
  'test/unit/!(sandbox-imports).test.ts',
  'test/cli/{args,client,errors,format,run,state-file,stream-printer,views}.test.ts',
  'test/channels/channel-settings.test.ts',
  'test/deploy/compose.test.ts',
  'test/inbox/session.test.ts',
];

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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // Logs of the code under test stay quiet unless something is wrong.
    env: { LOG_LEVEL: 'warn' },
    // `npm test` runs both; `vitest run --project unit` (npm run test:unit) the quick loop.
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT_TESTS } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT_TESTS],
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
