#!/usr/bin/env node
// The `a2a-temporal` command. tsx is registered first so that `dev`, `worker` and `gateway` can load
// a project's TypeScript config, agents and activities as they are. In a checkout the command runs
// this repository's TypeScript source, so edits take effect at once; an installed package runs its build.
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const source = new URL('../src/cli/main.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/cli/main.js', import.meta.url).href);
