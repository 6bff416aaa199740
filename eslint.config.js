// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'node:*',
  'fs',
  'path',
  'os',
  'crypto',
  'child_process',
  'http',
  'https',
  'net',
  'stream',
  'timers',
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tools/', '.itk/', '.data/', 'coverage/', 'reports/', 'docs/api/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  { files: ['bin/**/*.js', 'scripts/**/*.mjs', 'eslint.config.js'], languageOptions: { globals: globals.node } },
  {
    // The approvals inbox's pages run in the browser, as plain ES modules (src/gateway/inbox/public).
    files: ['src/gateway/inbox/public/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
  {
    // Tests and benchmarks read raw wire JSON, where `any` reads better than casts at every step.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Temporal's deterministic sandbox: no Node, no I/O, no gateway (type-only imports are erased).
    files: [
      'src/index.ts',
      'src/config/define-config.ts',
      'src/workflows/**/*.ts',
      'src/protocol/**/*.ts',
      'examples/agents/**/*.ts',
      'examples/itk/{agents,instruction}.ts',
      'templates/project/src/agents.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: NODE_BUILTINS, message: 'Workflow code runs in a deterministic sandbox: no Node built-ins.' },
            {
              group: [
                '**/src/**',
                '**/gateway/**',
                '**/tasks/**',
                '**/package-activities/**',
                '**/activity-helpers/**',
                '**/temporal/**',
                'a2a-temporal/*',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
                '@a2a-js/*',
                'express',
              ],
              allowTypeImports: true,
              message:
                'Workflow code may import only workflow code, src/protocol, `a2a-temporal` and @temporalio/workflow|common.',
            },
          ],
        },
      ],
    },
  },
  {
    // The one door to Temporal for tasks: the gateway, the CLI, the worker and the dev stack call it, never the reverse
    // (test/unit/door-imports.test.ts checks it too).
    files: ['src/tasks/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/gateway/**', '**/cli/**', '**/dev/**', '**/testing/**', '**/worker/**', '**/channels/**'],
              message: 'The door to Temporal imports nothing from the code that calls it.',
            },
          ],
        },
      ],
    },
  },
  {
    // The examples are written as a user writes a project: through the package's public subpaths only.
    files: ['examples/**/*.ts', 'templates/**/*.ts'],
    ignores: ['examples/agents/**/*.ts', 'examples/itk/{agents,instruction}.ts', 'templates/project/src/agents.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/**', '**/dist/**', 'a2a-temporal/dist/*'],
              message:
                "Import the package's public subpaths: a2a-temporal, a2a-temporal/activity, /worker, /gateway, /testing.",
            },
          ],
        },
      ],
    },
  },
);
