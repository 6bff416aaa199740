/**
 * A real v0.3 client from another ecosystem: the Python a2a-sdk 0.3.x, installed by .ci/run into
 * .tools/a2a-sdk-0.3 (`python3 -m venv .tools/a2a-sdk-0.3 && .tools/a2a-sdk-0.3/bin/pip install
 * 'a2a-sdk>=0.3,<0.4'`). Without that virtualenv this file is skipped, saying so.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';

const PYTHON = fileURLToPath(new URL('../../../.tools/a2a-sdk-0.3/bin/python', import.meta.url));
const CLIENT = fileURLToPath(new URL('../../support/interop/v03_client.py', import.meta.url));
const installed = existsSync(PYTHON);
// vitest's default output shows a skipped file as a count only: say why here.
if (!installed)
  console.warn(`Skipping the Python a2a-sdk 0.3 interop tests: ${PYTHON} is missing (.ci/run installs it)`);

let harness: Harness;
beforeAll(async () => {
  if (installed) harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(!installed)('the Python a2a-sdk 0.3 client (needs .tools/a2a-sdk-0.3, see above)', () => {
  it.each([
    ['blocking', '0'],
    ['streaming', '1'],
  ])('completes the approval round trip, %s', async (_mode, streaming) => {
    const url = `${harness.gateway.url}/agents/expense-approval`;
    const { stdout } = await promisify(execFile)(PYTHON, [CLIENT, url, streaming], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      protocolVersion: '0.3',
      first: 'input-required',
      second: 'completed',
      sameTask: true,
      artifacts: ['approval-record'],
    });
  });
});
