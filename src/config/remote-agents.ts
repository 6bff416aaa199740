/**
 * The project config's `remoteAgents`: the A2A agents that agents call by name (`ctx.callAgent('supplier', …)`),
 * each deployment giving its own URL. Checked when the config loads, so that a mistake stops the
 * worker and the gateway at start with the field it is in; the worker resolves names at each call.
 */
import { z } from 'zod';
import type { RemoteAgentConfig } from '../protocol/delegation.js';

/** No `:` or `/`: a name is never mistaken for a URL. */
const NAME = /^[A-Za-z][\w-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = z.string().regex(ENV_NAME, 'must be the name of an environment variable');

const credentials = z.union(
  [
    z.strictObject({ bearerTokenEnv: envName }),
    z.strictObject({ apiKeyEnv: envName, header: z.string().min(1).optional() }),
  ],
  { error: 'must be { bearerTokenEnv } or { apiKeyEnv, header? }' },
);

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http: or https: URL' });

const cardKeys = z.union(
  [
    z.strictObject({ jwksUrl: httpUrl }),
    z.strictObject({ keys: z.array(z.looseObject({ kty: z.string() })).min(1, 'must hold at least one public JWK') }),
  ],
  { error: 'must be { jwksUrl } or { keys: [public JWKs] }' },
);

const remoteAgent = z
  .strictObject({
    url: httpUrl.optional(),
    urlEnv: envName.optional(),
    transport: z.enum(['JSONRPC', 'HTTP+JSON', 'GRPC']).optional(),
    credentials: credentials.optional(),
    cardKeys: cardKeys.optional(),
  })
  .refine((agent) => (agent.url === undefined) !== (agent.urlEnv === undefined), {
    error: 'give exactly one of url and urlEnv (the variable that holds the URL on each deployment)',
  });

const remoteAgents = z.record(z.string().regex(NAME), remoteAgent);
const BAD_NAME = 'is not a name: letters, digits, _ and -, a letter first';

/** `value` as the config's `remoteAgents`, or what is wrong with it, by field. */
export function checkRemoteAgents(value: unknown): Record<string, RemoteAgentConfig> | string {
  const parsed = remoteAgents.safeParse(value);
  if (parsed.success) return parsed.data;
  return parsed.error.issues
    .map((issue) => {
      const path = `remoteAgents${issue.path.map((key) => `.${String(key)}`).join('')}`;
      // Zod's own message for a record's key says only that it is invalid.
      return `${path}: ${issue.code === 'invalid_key' ? BAD_NAME : issue.message}`;
    })
    .join('; ');
}
