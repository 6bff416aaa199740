/**
 * Workflow code runs in Temporal's deterministic sandbox: src/workflows, src/agents and
 * src/protocol may not import Node built-ins, the gateway, or Node-only Temporal packages
 * (type-only imports are erased and allowed). ESLint enforces the same rule while editing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const SANDBOXED = ['workflows', 'agents', 'protocol'];
const FORBIDDEN_PACKAGES = [
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  '@a2a-js/sdk',
  'express',
];
const IMPORT = /^\s*import\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
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
        /(^|\/)(gateway|activities|temporal)(\/|$)/.test(specifier),
    );
}

describe('the deterministic sandbox wall', () => {
  it.each(SANDBOXED)('src/%s imports nothing from Node, the gateway or activities at run time', (dir) => {
    const found = filesUnder(join(SRC, dir)).flatMap((file) => violations(file).map((v) => `${file}: ${v}`));
    expect(found).toEqual([]);
  });
});
