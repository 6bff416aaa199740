/**
 * A real v1.0 client from another ecosystem: the Go SDK (a2a-go v2, test/support/interop/go-client, built here
 * with `go build`, modules from the Go module proxy), on each transport, blocking and streaming, with
 * API keys on: it authenticates as the card's security schemes say. Without Go this file is skipped,
 * saying so (under CI it fails).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import {
  API_KEY,
  apiKeyAuthenticator,
  expectedCalls,
  TRANSPORT_CASES,
  foreignToolFound,
} from '../../support/interop/foreign-clients.js';

const SOURCE = fileURLToPath(new URL('../../support/interop/go-client', import.meta.url));
const hasGo = foreignToolFound(
  (() => {
    try {
      execFileSync('go', ['version']);
      return true;
    } catch {
      return false;
    }
  })(),
  'the Go a2a-go interop tests',
  'no `go` on PATH',
);

let harness: Harness;
let built: string;
beforeAll(async () => {
  if (!hasGo) return;
  built = mkdtempSync(join(tmpdir(), 'a2a-go-client-'));
  // The first build downloads the modules go.sum pins from the Go module proxy.
  await promisify(execFile)('go', ['build', '-o', built, '.'], { cwd: SOURCE, timeout: 240_000 });
  harness = await startHarness({ gateway: { authenticator: apiKeyAuthenticator() } });
}, 300_000);
afterAll(async () => {
  await harness?.close();
  if (built) rmSync(built, { recursive: true, force: true });
});

describe.skipIf(!hasGo)('the Go SDK client, a2a-go v2 (needs go, see above)', () => {
  it.each(TRANSPORT_CASES)(
    'completes the approval and every task call over %s, streaming %s',
    async (binding, streaming) => {
      const url = `${harness.gateway.url}/agents/expense-approval`;
      const args = [url, binding, streaming ? '1' : '0', API_KEY];
      const { stdout } = await promisify(execFile)(join(built, 'go-client'), args, { timeout: 60_000 });
      expect(JSON.parse(stdout)).toEqual(expectedCalls(streaming));
    },
  );
});
