/**
 * src/tasks is the one door to Temporal for tasks: the gateway, the CLI, the worker's unblocking and
 * the dev stack call it, and it calls none of them back. What it needs of its own (the A2A errors of
 * Temporal's failures, the Update IDs of messages) lives in it; shared shapes live in src/protocol.
 * ESLint enforces the same rule while editing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const DOOR = join(SRC, 'tasks');
/** The folders that call the door: importing one of them would be an import back up. */
const CALLERS = ['gateway', 'cli', 'dev', 'testing', 'worker', 'channels'];

function importsBackUp(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .filter((specifier) => {
      const [top] = relative(SRC, join(dirname(file), specifier)).split('/');
      return CALLERS.includes(top!);
    });
}

describe('the door to Temporal (src/tasks)', () => {
  it('imports nothing from the code that calls it', () => {
    const files = readdirSync(DOOR, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const found = files.flatMap((name) => importsBackUp(join(DOOR, name)).map((specifier) => `${name}: ${specifier}`));
    expect(found).toEqual([]);
  });
});
