// The build's second step: tsc compiles only TypeScript, so the approvals inbox's pages, scripts and
// style (plain files, served as they are) are copied next to the compiled module that serves them.
import { cpSync, rmSync } from 'node:fs';

const from = new URL('../src/gateway/inbox/public/', import.meta.url);
const to = new URL('../dist/gateway/inbox/public/', import.meta.url);
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
