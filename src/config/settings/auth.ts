/** How the gateway authenticates callers (src/gateway/auth/settings.ts); `gateway` requires A2A_AUTH. */
import { group, httpUrl, positiveNumber, secretOf, setting, text, wholeSeconds } from '../setting.js';

/** RFC 7518 §3.2: an HS256 key (and the secrets kept like one) at least as long as the hash. */
export const MIN_SECRET_BYTES = 32;

export const AUTH_SETTINGS = group('auth', {
  A2A_AUTH: setting({
    parse: text,
    defaultText: 'required by `gateway`; `none` under `dev`',
    description: '`none`, or a comma list of `api-key`, `jwt`, `trusted-header` (see [Authentication](security.md)).',
  }),
  A2A_API_KEYS_FILE: setting({
    parse: text,
    description: 'api-key: path of a JSON array of `{sha256, principal, groups?}`.',
  }),
  A2A_API_KEYS: setting({
    parse: text,
    description: 'api-key: the same JSON inline (hashes of the keys, not the keys).',
  }),
  A2A_JWT_JWKS_URL: setting({
    parse: httpUrl,
    description: "jwt: the issuer's JWKS URL (or A2A_JWT_SECRET).",
  }),
  A2A_JWT_SECRET: setting({
    parse: secretOf(MIN_SECRET_BYTES),
    secret: true,
    description: 'jwt: the HS256 shared secret, 32 bytes or more (or A2A_JWT_JWKS_URL).',
  }),
  A2A_JWT_ISSUER: setting({ parse: text, description: 'jwt: the expected `iss`, checked when set.' }),
  A2A_JWT_AUDIENCE: setting({
    parse: text,
    description: 'jwt: the expected `aud`; required with A2A_JWT_JWKS_URL.',
  }),
  A2A_JWT_CLOCK_SKEW: setting({
    parse: wholeSeconds,
    default: 30,
    description: 'jwt: seconds of tolerance on `exp` and `nbf`.',
  }),
  A2A_JWT_GROUPS_CLAIM: setting({
    parse: text,
    default: 'groups',
    description: "jwt: the claim holding the caller's groups.",
  }),
  A2A_TRUSTED_USER_HEADER: setting({
    parse: text,
    description: "trusted-header: the header a trusted proxy sets to the caller's id.",
  }),
  A2A_TRUSTED_PROXY_SECRET: setting({
    parse: secretOf(MIN_SECRET_BYTES),
    secret: true,
    description: 'trusted-header: the secret the proxy sends in `x-a2a-proxy-secret`, 32 bytes or more.',
  }),
  A2A_TRUSTED_GROUPS_HEADER: setting({
    parse: text,
    description: "trusted-header: the header the proxy sets to the caller's comma-separated groups.",
  }),
  A2A_NEW_TASKS_PER_MINUTE: setting({
    parse: positiveNumber,
    default: 120,
    description: 'New tasks a principal may start per minute (with authentication).',
  }),
  A2A_INBOX_SESSION_SECRET: setting({
    parse: secretOf(MIN_SECRET_BYTES),
    secret: true,
    defaultText: 'random per process: inbox sessions end with it',
    description: 'The key inbox session cookies are signed with (see [The approvals inbox](inbox.md)).',
  }),
});
