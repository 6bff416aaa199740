/**
 * Whether the packages on the measured paths were edited after `npm install`: a measuring aid (a
 * promise counter) once left in Temporal's worker package skewed the figures of many runs unnoticed.
 * npm writes `node_modules/.package-lock.json` last when it installs, so a JavaScript file of those
 * packages changed later was edited by hand (a later `npm install` hides earlier edits; `npm ci`
 * undoes them).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes.js';

/** The packages whose code runs on the measured paths (Temporal's on both sides). */
const MEASURED_PACKAGES = ['@temporalio', '@a2a-js', '@grpc', 'express', 'zod'];

/** Files of the measured packages modified after the install, relative to node_modules. */
export function editedPackageFiles(): string[] {
  const modules = join(ROOT, 'node_modules');
  let installedAt: number;
  try {
    installedAt = statSync(join(modules, '.package-lock.json')).mtimeMs;
  } catch {
    return [];
  }
  const edited: string[] = [];
  for (const name of MEASURED_PACKAGES) {
    const root = join(modules, name);
    let entries: string[];
    try {
      entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.endsWith('.js') && !entry.endsWith('.cjs') && !entry.endsWith('.mjs')) continue;
      if (statSync(join(root, entry)).mtimeMs > installedAt) edited.push(join(name, entry));
    }
  }
  return edited;
}
