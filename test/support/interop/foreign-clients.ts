/**
 * The v1.0 clients from other ecosystems that .ci/run installs, and what the tests share with them:
 * the Python a2a-sdk 1.x in .tools/a2a-sdk-1, and the gateway they talk to with API keys on (so each
 * client reads the card's security schemes to authenticate).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAuthenticator } from '../../../src/gateway/auth/authenticator.js';
import { hashApiKey } from '../../../src/gateway/auth/settings.js';

export const PYTHON_A2A_1 = fileURLToPath(new URL('../../../.tools/a2a-sdk-1/bin/python', import.meta.url));

/**
 * Whether a foreign client's tool is here; else says why the caller's tests are skipped, except under
 * CI, where .ci/run installs every one and a missing tool is a failure, never a silent skip.
 */
export function foreignToolFound(found: boolean, what: string, missing: string): boolean {
  if (found) return true;
  if (process.env.CI) throw new Error(`${what}: ${missing}, which .ci/run installs`);
  // vitest's default output shows a skipped file as a count only: say why here.
  console.warn(`Skipping ${what}: ${missing} (.ci/run installs it)`);
  return false;
}

/** True when the Python a2a-sdk 1.x is installed (see foreignToolFound). */
export function pythonA2a1Installed(what: string): boolean {
  return foreignToolFound(existsSync(PYTHON_A2A_1), what, `${PYTHON_A2A_1} is missing`);
}

/** Every transport, blocking and streaming: what each foreign client is run over. */
export const TRANSPORT_CASES: Array<[binding: string, streaming: boolean]> = [
  ['JSONRPC', false],
  ['JSONRPC', true],
  ['HTTP+JSON', false],
  ['HTTP+JSON', true],
  ['GRPC', false],
  ['GRPC', true],
];

export const API_KEY = 'a-key-for-foreign-clients';

export const apiKeyAuthenticator = () =>
  createAuthenticator({
    methods: ['api-key'],
    apiKeys: [{ sha256: hashApiKey(API_KEY), principal: 'foreign-client', groups: [] }],
  });

/**
 * What a foreign client's driver prints after the approval and every task call (v10_client.py, the Go
 * driver): it subscribes only when streaming, as the SDKs allow.
 */
export const expectedCalls = (streaming: boolean) => ({
  securitySchemes: ['apiKey'],
  first: 'TASK_STATE_INPUT_REQUIRED',
  second: 'TASK_STATE_COMPLETED',
  sameTask: true,
  getTask: ['TASK_STATE_COMPLETED', ['approval-record']],
  listTasks: [true],
  pushConfigs: ['hook', 'https://example.com/hook', ['hook'], 0],
  subscribe: streaming ? 'TASK_STATE_INPUT_REQUIRED' : null,
  cancel: 'TASK_STATE_CANCELED',
});
