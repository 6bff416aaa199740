/**
 * Temporal's packages must be one exact version (Temporal releases them together and supports only
 * matching versions), and the SDK's internals (`@temporalio/<package>/lib/...`), which any release
 * may move, are reached from one fenced file only: on an upgrade that file is the one to read again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  defaultDataConverter,
  SearchAttributeType,
  type LoadedDataConverter,
  type PayloadCodec,
} from '@temporalio/common';
// The internals replaced in src, here only as the measure of their replacements.
import {
  decodeMapFromPayloads,
  encodeMapToPayloads,
} from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { describe, expect, it } from 'vitest';
import { indexedValueType } from '../../../src/temporal/search-attributes.js';
import { decodeMemo } from '../../../src/tasks/decode-memo.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Where src reaches into the SDK: sandbox-safe (workflow code may import it), and Node only. */
const FENCES = ['src/protocol/temporal-sdk-compat.ts', 'src/temporal/sdk-internals.ts'];
/** Any module specifier that reaches into a Temporal package's files. */
const INTERNAL_SPECIFIER = /['"](@temporalio\/[^/'"]+\/lib\/[^'"]*)['"]/g;

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The root package is `''`; each installed one is `node_modules/<name>` (nested ones under their dependant). */
interface PackageLock {
  packages: Record<string, PackageJson & { version?: string }>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;

function temporalRanges(manifest: PackageJson): Record<string, string> {
  const all = {
    ...manifest.dependencies,
    ...manifest.devDependencies,
    ...manifest.optionalDependencies,
    ...manifest.peerDependencies,
  };
  return Object.fromEntries(Object.entries(all).filter(([name]) => name.startsWith('@temporalio/')));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('the Temporal SDK', () => {
  const pinned = temporalRanges(readJson<PackageJson>('package.json'));
  const version = pinned['@temporalio/client']!;

  it('is one exact version across every @temporalio/* dependency', () => {
    expect(Object.keys(pinned).length).toBeGreaterThan(1);
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pinned).toEqual(Object.fromEntries(Object.keys(pinned).map((name) => [name, version])));
  });

  it('is that version in the lockfile too', () => {
    const lock = readJson<PackageLock>('package-lock.json');
    expect(temporalRanges(lock.packages['']!)).toEqual(pinned);
    const installed = Object.entries(lock.packages)
      .filter(([path]) => /(^|\/)node_modules\/@temporalio\/[^/]+$/.test(path))
      .map(([path, entry]) => [path, entry.version]);
    expect(installed.length).toBeGreaterThanOrEqual(Object.keys(pinned).length);
    expect(installed).toEqual(installed.map(([path]) => [path, version]));
  });

  it(`is reached into (@temporalio/*/lib/...) from ${FENCES.join(' and ')} only`, () => {
    const outside = sourceFiles('src')
      .filter((file) => !FENCES.includes(file))
      .flatMap((file) =>
        [...readFileSync(join(ROOT, file), 'utf8').matchAll(INTERNAL_SPECIFIER)].map(
          ([, specifier]) => `${file}: ${specifier}`,
        ),
      );
    expect(outside).toEqual([]);
  });

  it('and those files name the version they were written against', () => {
    for (const fence of FENCES) expect(readFileSync(join(ROOT, fence), 'utf8')).toContain(`@temporalio/* ${version}`);
  });
});

/** A codec that wraps each payload's data in `name(...)`, and refuses to decode what it did not wrap. */
function wrapping(name: string): PayloadCodec {
  const open = Buffer.from(`${name}(`);
  return {
    encode: (payloads) =>
      Promise.resolve(payloads.map((p) => ({ ...p, data: Buffer.concat([open, p.data ?? new Uint8Array()]) }))),
    decode: (payloads) =>
      Promise.resolve(
        payloads.map((p) => {
          const data = Buffer.from(p.data ?? new Uint8Array());
          if (!data.subarray(0, open.length).equals(open)) throw new Error(`${name} did not encode this`);
          return { ...p, data: data.subarray(open.length) };
        }),
      ),
  };
}

describe('the public replacements of SDK internals', () => {
  it('decode memo fields as the SDK does, through every codec, last first', async () => {
    const converter: LoadedDataConverter = { ...defaultDataConverter, payloadCodecs: [wrapping('a'), wrapping('b')] };
    const memo = { summary: { status: { state: 'TASK_STATE_WORKING' } }, count: 2, empty: null };
    const fields = await encodeMapToPayloads(converter, memo);
    expect(await decodeMemo(converter, fields)).toEqual(memo);
    expect(await decodeMemo(converter, fields)).toEqual(await decodeMapFromPayloads(converter, fields));
  });

  it('map every search attribute type to the IndexedValueType the SDK would', () => {
    for (const type of Object.values(SearchAttributeType)) {
      expect(indexedValueType(type), type).toBe(encodeSearchAttributeIndexedValueType(type));
    }
  });
});
