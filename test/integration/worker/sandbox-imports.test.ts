/**
 * Workflow code runs in Temporal's deterministic sandbox. The agent subpath (`a2a-temporal`), the
 * task workflow, the shared protocol code and the example agents may not import Node built-ins,
 * the gateway, the door to Temporal (src/tasks), activities or Node-only Temporal packages (type-only
 * imports are erased and allowed); ESLint enforces the same rule while editing. Temporal's own
 * bundler proves it: it refuses any workflow bundle that reaches a Node module.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleAgents } from '../../../src/worker/agents-bundle.js';
import { SHARED_MODULES_GLOBAL } from '../../../src/workflows/shared-modules-global.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SANDBOXED = [
  'src/index.ts',
  'src/config/define-config.ts',
  'src/workflows',
  'src/protocol',
  'examples/agents',
  'templates/project/src/agents.ts',
];
const FORBIDDEN_PACKAGES = [
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@a2a-js/sdk',
  'express',
  'a2a-temporal/activity',
  'a2a-temporal/worker',
  'a2a-temporal/gateway',
  'a2a-temporal/testing',
];
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm;
const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(path, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(path, entry.name)]
        : [],
  );
}

function violations(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(IMPORT)]
    .filter(([, typeOnly]) => !typeOnly)
    .map(([, , specifier]) => specifier!)
    .filter(
      (specifier) =>
        specifier.startsWith('node:') ||
        builtinModules.includes(specifier) ||
        FORBIDDEN_PACKAGES.some((pkg) => specifier === pkg || specifier.startsWith(`${pkg}/`)) ||
        /(^|\/)(gateway|tasks|package-activities|activity-helpers|temporal|worker|testing)(\/|$)/.test(specifier),
    );
}

describe('the deterministic sandbox wall', () => {
  it.each(SANDBOXED)('%s imports nothing from Node, the gateway or activities at run time', (path) => {
    const found = filesUnder(join(ROOT, path)).flatMap((file) => violations(file).map((v) => `${file}: ${v}`));
    expect(found).toEqual([]);
  });

  it("Temporal's bundler accepts every value of the agent subpath", { timeout: 60_000 }, async () => {
    const bundle = await bundleAgents(join(ROOT, 'test/fixtures/agents/whole-api.ts'), { logger: quiet });
    expect(bundle.code).toContain('whole-api');
  });

  it('and refuses agent code that reaches a Node module (the check has teeth)', { timeout: 60_000 }, async () => {
    const errors: string[] = [];
    const logger = { ...quiet, error: (message: string) => errors.push(message) };
    await expect(bundleAgents(join(ROOT, 'test/fixtures/agents/uses-node.ts'), { logger })).rejects.toThrow(/Webpack/);
    expect(errors.join('\n')).toMatch(/node:fs/);
  });

  // Temporal's sandbox evaluates the bundle's modules again for every task, and zod's were most of
  // that work: every workflow reads the one copy the worker preloads (src/workflows/shared-zod.ts).
  it(
    'bundles zod whole into the module the worker preloads, and points workflow code at it',
    { timeout: 60_000 },
    async () => {
      const { code } = await bundleAgents(join(ROOT, 'examples/agents/index.ts'), { logger: quiet });
      expect(code).toContain(`= globalThis.${SHARED_MODULES_GLOBAL}.get("zod");`);
      expect(code).toMatch(/^\/\*\*\*\/ "\.\/src\/workflows\/shared-zod\.ts"/m);
      expect(code).not.toMatch(/^\/\*\*\*\/ "\.\/node_modules\/zod\//m);
    },
  );

  // A zod module of its own would be frozen by the sandbox, and zod's format checks would throw in
  // every task: such a bundle is refused, saying why.
  it('refuses a bundle that leaves part of the shared zod a module of its own', { timeout: 60_000 }, async () => {
    const errors: string[] = [];
    const logger = { ...quiet, error: (message: string) => errors.push(message) };
    const withoutScopeHoisting = bundleAgents(join(ROOT, 'test/fixtures/agents/plain.ts'), {
      logger,
      webpackConfigHook: (config) => ({
        ...config,
        optimization: { ...config.optimization, concatenateModules: false },
      }),
    });
    await expect(withoutScopeHoisting).rejects.toThrow(/Webpack/);
    expect(errors.join('\n')).toMatch(/shares one zod among all workflows.*concatenateModules/s);
  });

  it('and one that imports a piece of the shared zod by a path of its own', { timeout: 60_000 }, async () => {
    const errors: string[] = [];
    const logger = { ...quiet, error: (message: string) => errors.push(message) };
    await expect(bundleAgents(join(ROOT, 'test/fixtures/agents/zod-one-locale.ts'), { logger })).rejects.toThrow(
      /Webpack/,
    );
    expect(errors.join('\n')).toMatch(/shares one zod among all workflows, bundled whole: v4\/.+ was left outside it/);
  });

  it('refuses modules of the project preloaded beside the shared zod', async () => {
    await expect(
      bundleAgents(join(ROOT, 'test/fixtures/agents/plain.ts'), { logger: quiet, preloadModules: ['zod'] }),
    ).rejects.toThrow(/remove bundlerOptions.preloadModules/);
  });
});
