#!/usr/bin/env node
// The `a2a-temporal` command. In a checkout it runs the TypeScript source through tsx, so edits
// take effect at once; where only the build is shipped (the Docker image, a package) it runs that.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
