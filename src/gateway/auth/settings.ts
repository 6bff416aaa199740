/**
 * How the gateway authenticates callers, read from the environment once at startup. Every mistake is
 * an ConfigError naming the variable and what to set, so a misconfigured gateway refuses to start
 * rather than serving with weaker authentication than intended. A blank variable counts as unset.
 *
 * A2A_AUTH                   `none`, or a comma list of `api-key`, `jwt`, `trusted-header`
 * A2A_API_KEYS_FILE          path of a JSON array of {sha256, principal, groups?} (api-key)
 * A2A_API_KEYS               the same JSON inline (api-key)
 * A2A_JWT_JWKS_URL           the issuer's JWKS (jwt; or A2A_JWT_SECRET)
 * A2A_JWT_SECRET             HS256 shared secret, at least 32 bytes (jwt; or A2A_JWT_JWKS_URL)
 * A2A_JWT_ISSUER             expected `iss`, checked when set
 * A2A_JWT_AUDIENCE           expected `aud`, checked when set
 * A2A_JWT_CLOCK_SKEW         seconds of tolerance on exp/nbf (30)
 * A2A_JWT_GROUPS_CLAIM       claim holding the caller's groups (groups)
 * A2A_TRUSTED_USER_HEADER    header a trusted proxy sets to the caller's id (trusted-header)
 * A2A_TRUSTED_GROUPS_HEADER  header the proxy sets to the caller's comma-separated groups (optional)
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { GROUP_PREFIX } from '../../protocol/contract.js';
import { ConfigError } from '../../config/config-error.js';

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
/** RFC 7518 §3.2: an HS256 key must be at least as long as the hash. */
const MIN_SECRET_BYTES = 32;

/** The SHA-256 of an API key as lowercase hex, the form A2A_API_KEYS stores. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The auth settings, or undefined when A2A_AUTH is unset (the gateway then keeps its older behaviour). */
export function authSettingsFromEnv(env: NodeJS.ProcessEnv): AuthSettings | undefined {
  const methodList = value(env, 'A2A_AUTH');
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

/** The items of a comma-separated setting, trimmed, without empty ones. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function parseMethods(list: string): AuthMethod[] {
  const names = commaList(list).map((name) => name.toLowerCase());
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

function apiKeys(env: NodeJS.ProcessEnv): ApiKeyEntry[] {
  const file = value(env, 'A2A_API_KEYS_FILE');
  const inline = value(env, 'A2A_API_KEYS');
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

const jwksUrlSchema = z.url({
  protocol: /^https?$/,
  error:
    'A2A_JWT_JWKS_URL must be an http(s) URL of the issuer JWKS, e.g. https://issuer.example/.well-known/jwks.json',
});
const secretSchema = z
  .string()
  .refine(
    (secret) => Buffer.byteLength(secret, 'utf8') >= MIN_SECRET_BYTES,
    `A2A_JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes (e.g. \`openssl rand -hex 32\`)`,
  );
const skewSchema = z
  .string()
  .regex(/^\d+$/, 'A2A_JWT_CLOCK_SKEW must be a whole number of seconds, e.g. 30')
  .transform(Number);
const claimSchema = z.string().trim().min(1);

function jwtSettings(env: NodeJS.ProcessEnv): NonNullable<AuthSettings['jwt']> {
  const jwksUrl = value(env, 'A2A_JWT_JWKS_URL');
  const secret = value(env, 'A2A_JWT_SECRET');
  if (jwksUrl === undefined && secret === undefined) {
    throw new ConfigError(
      'A2A_AUTH includes jwt but no key is configured: set A2A_JWT_JWKS_URL to the issuer JWKS URL, or A2A_JWT_SECRET to the HS256 shared secret.',
    );
  }
  if (jwksUrl !== undefined && secret !== undefined) {
    throw new ConfigError('A2A_JWT_JWKS_URL and A2A_JWT_SECRET are both set: keep one of them.');
  }
  const issuer = value(env, 'A2A_JWT_ISSUER');
  const audience = value(env, 'A2A_JWT_AUDIENCE');
  if (jwksUrl !== undefined && audience === undefined) {
    throw new ConfigError(
      'A2A_JWT_JWKS_URL is set but A2A_JWT_AUDIENCE is not: set the audience your identity provider issues tokens for this gateway with, or tokens it issued for other applications would be accepted.',
    );
  }
  const skew = value(env, 'A2A_JWT_CLOCK_SKEW');
  return {
    ...(jwksUrl !== undefined && { jwksUrl: parse(jwksUrlSchema, jwksUrl) }),
    ...(secret !== undefined && { secret: parse(secretSchema, secret) }),
    ...(issuer !== undefined && { issuer }),
    ...(audience !== undefined && { audience }),
    clockToleranceSeconds: skew === undefined ? 30 : parse(skewSchema, skew),
    groupsClaim: parse(claimSchema, value(env, 'A2A_JWT_GROUPS_CLAIM') ?? 'groups'),
  };
}

/** An HTTP field name (RFC 9110 token), lowercased as Node and gRPC metadata present them. */
const headerNameSchema = (variable: string) =>
  z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, `${variable} must be a header name, e.g. x-forwarded-user`)
    .transform((name) => name.toLowerCase());

function trustedHeaders(
  env: NodeJS.ProcessEnv,
): Pick<AuthSettings, 'trustedHeader' | 'trustedGroupsHeader' | 'trustedProxySecret'> {
  const header = value(env, 'A2A_TRUSTED_USER_HEADER');
  if (header === undefined) {
    throw new ConfigError(
      'A2A_AUTH includes trusted-header but A2A_TRUSTED_USER_HEADER is unset: set it to the header your authenticating proxy sets to the caller id, e.g. x-forwarded-user.',
    );
  }
  const secret = value(env, 'A2A_TRUSTED_PROXY_SECRET');
  if (secret === undefined || Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw new ConfigError(
      `A2A_AUTH includes trusted-header but A2A_TRUSTED_PROXY_SECRET is unset or shorter than ${MIN_SECRET_BYTES} bytes: set it to a random secret your proxy sends in the ${TRUSTED_PROXY_SECRET_HEADER} header, so clients that bypass the proxy cannot name themselves.`,
    );
  }
  const groups = value(env, 'A2A_TRUSTED_GROUPS_HEADER');
  return {
    trustedProxySecret: secret,
    trustedHeader: parse(headerNameSchema('A2A_TRUSTED_USER_HEADER'), header),
    ...(groups !== undefined && {
      trustedGroupsHeader: parse(headerNameSchema('A2A_TRUSTED_GROUPS_HEADER'), groups),
    }),
  };
}

/** The variable's value as given (a secret keeps its spaces), or undefined when unset or blank. */
function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw?.trim() ? raw : undefined;
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
