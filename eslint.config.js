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
  { ignores: ['dist/', 'node_modules/', '.tools/', '.data/', 'coverage/', 'reports/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  { files: ['bin/**/*.js', 'eslint.config.js'], languageOptions: { globals: globals.node } },
  {
    // Tests and benchmarks read raw wire JSON, where `any` reads better than casts at every step.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Temporal's deterministic sandbox: no Node, no I/O, no gateway (type-only imports are erased).
    files: ['src/workflows/**/*.ts', 'src/agents/**/*.ts', 'src/protocol/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: NODE_BUILTINS, message: 'Workflow code runs in a deterministic sandbox: no Node built-ins.' },
            {
              group: [
                '**/gateway/**',
                '**/activities/**',
                '**/temporal/**',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
                '@a2a-js/*',
                'express',
              ],
              allowTypeImports: true,
              message: 'Workflow code may import only workflow code, src/protocol and @temporalio/workflow|common.',
            },
          ],
        },
      ],
    },
  },
);
