/**
 * How the gateway authenticates callers, from the auth settings (src/config/settings/auth.ts declares
 * each variable): what no single variable can say is checked here, at startup. Every mistake is a
 * ConfigError naming the variable and what to set, so a misconfigured gateway refuses to start
 * rather than serving with weaker authentication than intended.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { GROUP_PREFIX } from '../../protocol/contract.js';
import { ConfigError } from '../../config/config-error.js';
import { commaItems } from '../../config/setting.js';
import type { Settings } from '../../config/settings.js';
import { MIN_SECRET_BYTES } from '../../config/settings/auth.js';

type AuthVariables = Pick<
  Settings,
  | 'A2A_AUTH'
  | 'A2A_API_KEYS_FILE'
  | 'A2A_API_KEYS'
  | 'A2A_JWT_JWKS_URL'
  | 'A2A_JWT_SECRET'
  | 'A2A_JWT_ISSUER'
  | 'A2A_JWT_AUDIENCE'
  | 'A2A_JWT_CLOCK_SKEW'
  | 'A2A_JWT_GROUPS_CLAIM'
  | 'A2A_TRUSTED_USER_HEADER'
  | 'A2A_TRUSTED_PROXY_SECRET'
  | 'A2A_TRUSTED_GROUPS_HEADER'
>;

/** A way callers authenticate (`A2A_AUTH`): an API key, a JWT, or an authenticating proxy's headers. */
export type AuthMethod = 'api-key' | 'jwt' | 'trusted-header';

interface ApiKeyEntry {
  /** SHA-256 of the key, 64 lowercase hex characters: the gateway never holds keys in clear. */
  sha256: string;
  principal: string;
  groups?: string[];
}

export interface AuthSettings {
  /** Empty means no authentication: every caller is anonymous. */
  methods: AuthMethod[];
  apiKeys: ApiKeyEntry[];
  jwt?: {
    jwksUrl?: string;
    secret?: string;
    issuer?: string;
    audience?: string;
    clockToleranceSeconds: number;
    groupsClaim: string;
  };
  /** Lowercase header name. */
  trustedHeader?: string;
  /**
   * A secret only the proxy knows, sent in TRUSTED_PROXY_SECRET_HEADER: without it a client that
   * reaches the gateway directly (gRPC port included) could name itself anyone.
   */
  trustedProxySecret?: string;
  /** Lowercase header name. */
  trustedGroupsHeader?: string;
}

/** The header in which an authenticating proxy proves it is the proxy (A2A_TRUSTED_PROXY_SECRET). */
export const TRUSTED_PROXY_SECRET_HEADER = 'x-a2a-proxy-secret';

const METHODS: readonly AuthMethod[] = ['api-key', 'jwt', 'trusted-header'];
const KEY_FORMAT =
  '[{"sha256": "<sha256 hex of the key>", "principal": "<caller id>", "groups": ["<group>"]}] (hash a key with `printf %s "$KEY" | sha256sum`)';

/** The SHA-256 of an API key as lowercase hex, the form A2A_API_KEYS stores. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The auth settings, or undefined when A2A_AUTH is unset (the gateway then keeps its older behaviour). */
export function authSettingsFromEnv(env: AuthVariables): AuthSettings | undefined {
  const methodList = env.A2A_AUTH;
  if (methodList === undefined) return undefined;
  const methods = parseMethods(methodList);
  return {
    methods,
    apiKeys: methods.includes('api-key') ? apiKeys(env) : [],
    ...(methods.includes('jwt') && { jwt: jwtSettings(env) }),
    ...(methods.includes('trusted-header') && trustedHeaders(env)),
  };
}

const methodSchema = z.enum(METHODS, {
  error: (issue) =>
    `A2A_AUTH: unknown method "${String(issue.input)}". Use none, or a comma list of ${METHODS.join(', ')}.`,
});

function parseMethods(list: string): AuthMethod[] {
  const names = commaItems(list).map((name) => name.toLowerCase());
  if (names.includes('none')) {
    if (names.length > 1) {
      throw new ConfigError(`A2A_AUTH: "none" cannot be combined with other methods (got "${list}").`);
    }
    return [];
  }
  if (names.length === 0) throw new ConfigError(`A2A_AUTH: no method in "${list}".`);
  return [...new Set(names.map((name) => parse(methodSchema, name)))];
}

const apiKeyEntrySchema = z.strictObject({
  sha256: z
    .string()
    .regex(
      /^[0-9a-f]{64}$/,
      'sha256 must be the SHA-256 of the key as 64 lowercase hex characters (`printf %s "$KEY" | sha256sum`)',
    ),
  principal: z
    .string()
    .trim()
    .min(1, 'principal must be a non-empty caller id')
    // Responders name groups as `group:NAME`; a principal so named would look like one to a reader.
    .refine(
      (id) => !id.startsWith(GROUP_PREFIX),
      `principal must not start with "${GROUP_PREFIX}": that names a group`,
    ),
  groups: z.array(z.string().trim().min(1, 'groups must be non-empty strings')).optional(),
});
const apiKeysSchema = z.array(apiKeyEntrySchema).min(1, 'no keys: list at least one');

function apiKeys(env: AuthVariables): ApiKeyEntry[] {
  const file = env.A2A_API_KEYS_FILE;
  const inline = env.A2A_API_KEYS;
  if (file !== undefined && inline !== undefined) {
    throw new ConfigError('A2A_API_KEYS_FILE and A2A_API_KEYS are both set: keep one of them.');
  }
  if (file === undefined && inline === undefined) {
    throw new ConfigError(
      `A2A_AUTH includes api-key but no keys are configured: set A2A_API_KEYS_FILE to a JSON file, or A2A_API_KEYS to JSON, of ${KEY_FORMAT}.`,
    );
  }
  const source = file !== undefined ? `A2A_API_KEYS_FILE (${file})` : 'A2A_API_KEYS';
  const entries = parseJson(file !== undefined ? readKeysFile(file) : (inline ?? ''), source);
  const parsed = apiKeysSchema.safeParse(entries);
  if (!parsed.success) {
    throw new ConfigError(`${source}: ${describeIssues(parsed.error, 'entry')}. Expected ${KEY_FORMAT}.`);
  }
  const seen = new Set<string>();
  for (const entry of parsed.data) {
    if (seen.has(entry.sha256)) {
      throw new ConfigError(`${source}: two entries have sha256 ${entry.sha256}; each key must appear once.`);
    }
    seen.add(entry.sha256);
  }
  return parsed.data;
}

function readKeysFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(`A2A_API_KEYS_FILE: cannot read ${path} (${reason}). Set it to a readable JSON file.`);
  }
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConfigError(`${source} is not valid JSON (${(error as Error).message}). Expected ${KEY_FORMAT}.`);
  }
}

function jwtSettings(env: AuthVariables): NonNullable<AuthSettings['jwt']> {
  const { A2A_JWT_JWKS_URL: jwksUrl, A2A_JWT_SECRET: secret } = env;
  if (jwksUrl === undefined && secret === undefined) {
    throw new ConfigError(
      'A2A_AUTH includes jwt but no key is configured: set A2A_JWT_JWKS_URL to the issuer JWKS URL, or A2A_JWT_SECRET to the HS256 shared secret.',
    );
  }
  if (jwksUrl !== undefined && secret !== undefined) {
    throw new ConfigError('A2A_JWT_JWKS_URL and A2A_JWT_SECRET are both set: keep one of them.');
  }
  const { A2A_JWT_ISSUER: issuer, A2A_JWT_AUDIENCE: audience } = env;
  if (jwksUrl !== undefined && audience === undefined) {
    throw new ConfigError(
      'A2A_JWT_JWKS_URL is set but A2A_JWT_AUDIENCE is not: set the audience your identity provider issues tokens for this gateway with, or tokens it issued for other applications would be accepted.',
    );
  }
  return {
    ...(jwksUrl !== undefined && { jwksUrl }),
    ...(secret !== undefined && { secret }),
    ...(issuer !== undefined && { issuer }),
    ...(audience !== undefined && { audience }),
    clockToleranceSeconds: env.A2A_JWT_CLOCK_SKEW,
    groupsClaim: env.A2A_JWT_GROUPS_CLAIM,
  };
}

/** An HTTP field name (RFC 9110 token), lowercased as Node and gRPC metadata present them. */
const headerNameSchema = (variable: string) =>
  z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, `${variable} must be a header name, e.g. x-forwarded-user`)
    .transform((name) => name.toLowerCase());

function trustedHeaders(
  env: AuthVariables,
): Pick<AuthSettings, 'trustedHeader' | 'trustedGroupsHeader' | 'trustedProxySecret'> {
  const header = env.A2A_TRUSTED_USER_HEADER;
  if (header === undefined) {
    throw new ConfigError(
      'A2A_AUTH includes trusted-header but A2A_TRUSTED_USER_HEADER is unset: set it to the header your authenticating proxy sets to the caller id, e.g. x-forwarded-user.',
    );
  }
  // Its length is the declaration's to check (src/config/settings/auth.ts).
  const secret = env.A2A_TRUSTED_PROXY_SECRET;
  if (secret === undefined) {
    throw new ConfigError(
      `A2A_AUTH includes trusted-header but A2A_TRUSTED_PROXY_SECRET is unset or shorter than ${MIN_SECRET_BYTES} bytes: set it to a random secret your proxy sends in the ${TRUSTED_PROXY_SECRET_HEADER} header, so clients that bypass the proxy cannot name themselves.`,
    );
  }
  const groups = env.A2A_TRUSTED_GROUPS_HEADER;
  return {
    trustedProxySecret: secret,
    trustedHeader: parse(headerNameSchema('A2A_TRUSTED_USER_HEADER'), header),
    ...(groups !== undefined && {
      trustedGroupsHeader: parse(headerNameSchema('A2A_TRUSTED_GROUPS_HEADER'), groups),
    }),
  };
}

/** Parses with a schema whose messages already name the variable. */
function parse<T>(schema: z.ZodType<T, string>, input: string): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}

function describeIssues(error: z.ZodError, item: string): string {
  return error.issues
    .map((issue) => {
      const [index, ...field] = issue.path;
      if (index === undefined) return issue.message;
      return `${item} ${String(index)}${field.length ? ` (${field.join('.')})` : ''}: ${issue.message}`;
    })
    .join('; ');
}
