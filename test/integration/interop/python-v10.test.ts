/**
 * A real v1.0 client from another ecosystem: the Python a2a-sdk 1.x (.ci/run installs it into
 * .tools/a2a-sdk-1), on each transport, blocking and streaming, with API keys on: it authenticates
 * as the card's security schemes say. Without that virtualenv this file is skipped, saying so.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/gateway-harness.js';
import {
  API_KEY,
  apiKeyAuthenticator,
  expectedCalls,
  TRANSPORT_CASES,
  PYTHON_A2A_1,
  pythonA2a1Installed,
} from '../../support/interop/foreign-clients.js';

const CLIENT = fileURLToPath(new URL('../../support/interop/v10_client.py', import.meta.url));
const installed = pythonA2a1Installed('the Python a2a-sdk 1.x interop tests');

let harness: Harness;
beforeAll(async () => {
  if (installed) harness = await startHarness({ gateway: { authenticator: apiKeyAuthenticator() } });
});
afterAll(async () => {
  await harness?.close();
});

describe.skipIf(!installed)('the Python a2a-sdk 1.x client (needs .tools/a2a-sdk-1, see above)', () => {
  it.each(TRANSPORT_CASES)(
    'completes the approval and every task call over %s, streaming %s',
    async (binding, streaming) => {
      const url = `${harness.gateway.url}/agents/expense-approval`;
      const args = [CLIENT, url, binding, streaming ? '1' : '0', API_KEY];
      const { stdout } = await promisify(execFile)(PYTHON_A2A_1, args, { timeout: 60_000 });
      expect(JSON.parse(stdout)).toEqual(expectedCalls(streaming));
    },
  );
});
