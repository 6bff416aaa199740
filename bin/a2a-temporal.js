#!/usr/bin/env node
// The `a2a-temporal` command: the built CLI when `npm run build` has run, else the TypeScript
// source through tsx, so `npx a2a-temporal` works in a fresh checkout too.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
