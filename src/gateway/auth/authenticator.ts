/**
 * The one place callers are authenticated, whatever the transport: JSON-RPC and HTTP+JSON pass their
 * request headers, gRPC its metadata, and all get the same Principal or the same refusal. A credential
 * that is present must be valid, even when another method could admit the caller, so a bad token is
 * never silently ignored. Refusals say nothing a client could probe with; `detail` is for the logs.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWSHeaderParameters,
  type FlattenedJWSInput,
} from 'jose';
import type { Principal } from './principal.js';
import { TRUSTED_PROXY_SECRET_HEADER, type AuthMethod, type AuthSettings } from './settings.js';

/** Missing or bad credentials: the transport answers 401 (gRPC UNAUTHENTICATED) with `challenge`. */
export class AuthenticationError extends Error {
  override name = 'AuthenticationError';
  constructor(
    message: string,
    /** WWW-Authenticate value, e.g. 'Bearer error="invalid_token"' or 'ApiKey'. */
    readonly challenge: string,
    /** Why, for the logs only (e.g. the jose error code): never sent to the client. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The JWKS could not be fetched: not the caller's fault, so not a 401; the caller may retry. */
export class AuthUnavailableError extends Error {
  override name = 'AuthUnavailableError';
  constructor(
    readonly detail: string,
    cause?: unknown,
  ) {
    super('Authentication is temporarily unavailable, retry later', { cause });
  }
}

/** Header lookup over express headers or gRPC metadata (names lowercase). */
export type HeaderLookup = (name: string) => string | undefined;

/**
 * Who is calling, on every transport: the gateway's authentication (`A2A_AUTH`), as a
 * {@link GatewayOptions.authenticator}. Without one every caller is anonymous (development).
 */
export interface Authenticator {
  /** false when A2A_AUTH=none (or no methods): every caller is anonymous. */
  readonly required: boolean;
  /** The methods accepted, which the agent cards list as security schemes. */
  readonly methods: readonly AuthMethod[];
  /** The caller, or throws AuthenticationError (missing or bad credentials: never says which tasks exist). Returns undefined only when !required. */
  authenticate(header: HeaderLookup): Promise<Principal | undefined>;
  /**
   * What accepted the credential the headers carry, once `authenticate` did: an API key's entry (its
   * SHA-256, principal and groups) or the JWT settings that verified the token. A session made from
   * a credential (the inbox's sign-in) is bound to it and is good only while `acceptedCredentials`
   * still holds it, so removing the key, or changing the key or the issuer tokens are checked
   * against, ends it. Holds no secret in clear (the JWT secret only hashed), yet is for the gateway
   * only: a session keeps it keyed (inbox/session.ts).
   */
  credentialOf(header: HeaderLookup): string | undefined;
  /** Every credential (as `credentialOf` names it) this gateway accepts now. */
  readonly acceptedCredentials: readonly string[];
  /** Whether the request comes from the authenticating proxy: it carries A2A_TRUSTED_PROXY_SECRET. */
  fromTrustedProxy(header: HeaderLookup): boolean;
}

/** Verifies one method's credential if the request carries it; undefined when it does not. */
type Verifier = (header: HeaderLookup) => Promise<Principal> | undefined;

/** One method: its verifier, and for the credentials a session can be made from, their names. */
interface Method {
  verify: Verifier;
  accepted: readonly string[];
  credentialOf(header: HeaderLookup): string | undefined;
}

/** Where callers put an API key (the agent card advertises it). */
export const API_KEY_HEADER = 'x-api-key';
/** What a JWKS may sign with: never a shared-secret algorithm, never `none`. */
const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];
const CHALLENGES: Record<AuthMethod, string> = {
  'api-key': 'ApiKey',
  jwt: 'Bearer',
  'trusted-header': 'TrustedProxy',
};

export function createAuthenticator(settings: AuthSettings): Authenticator {
  const methods: readonly AuthMethod[] = Object.freeze([...new Set(settings.methods)]);
  const verifiers = methods.map((method) => verifierFor(method, settings));
  const challenge = methods.map((method) => CHALLENGES[method]).join(', ');
  const proxySecret = methods.includes('trusted-header') ? proxySecretCheck(settings) : () => false;
  return {
    required: methods.length > 0,
    methods,
    async authenticate(header) {
      if (methods.length === 0) return undefined;
      let principal: Principal | undefined;
      // Every credential present is checked, in the order A2A_AUTH lists the methods; the first wins.
      for (const { verify } of verifiers) {
        const pending = verify(header);
        if (!pending) continue;
        const caller = await pending;
        principal ??= caller;
      }
      if (!principal) throw new AuthenticationError('Authentication required', challenge, 'no credentials');
      return principal;
    },
    credentialOf: (header) => verifiers.map((method) => method.credentialOf(header)).find((id) => id !== undefined),
    acceptedCredentials: verifiers.flatMap((method) => method.accepted),
    fromTrustedProxy: proxySecret,
  };
}

function verifierFor(method: AuthMethod, settings: AuthSettings): Method {
  switch (method) {
    case 'api-key':
      return apiKeyVerifier(settings);
    case 'jwt':
      return jwtVerifier(settings);
    case 'trusted-header':
      // Nothing to make a session from: the proxy names the caller on every request.
      return { verify: trustedHeaderVerifier(settings), accepted: [], credentialOf: () => undefined };
  }
}

/** A header's value, or undefined when absent or blank. */
function present(header: HeaderLookup, name: string): string | undefined {
  const value = header(name);
  return value?.trim() ? value : undefined;
}

function apiKeyVerifier(settings: AuthSettings): Method {
  const keys = settings.apiKeys.map((entry) => {
    const groups = [...(entry.groups ?? [])];
    return {
      digest: Buffer.from(entry.sha256, 'hex'),
      principal: { id: entry.principal, groups, via: 'api-key' } satisfies Principal,
      credential: JSON.stringify(['api-key', entry.sha256, entry.principal, groups]),
    };
  });
  /** The entry the headers' key matches; every entry is compared, so the time taken does not depend on which. */
  const entryOf = (key: string) => {
    const digest = createHash('sha256').update(key, 'utf8').digest();
    let match: (typeof keys)[number] | undefined;
    for (const entry of keys) if (timingSafeEqual(entry.digest, digest) && !match) match = entry;
    return { digest, match };
  };
  return {
    verify(header) {
      const key = present(header, API_KEY_HEADER);
      if (key === undefined) return undefined;
      const { digest, match } = entryOf(key);
      if (!match) {
        const hint = `no configured key has sha256 ${digest.toString('hex').slice(0, 8)}…`;
        return Promise.reject(new AuthenticationError('Unknown API key', CHALLENGES['api-key'], hint));
      }
      return Promise.resolve({ ...match.principal, groups: [...match.principal.groups] });
    },
    accepted: keys.map((entry) => entry.credential),
    credentialOf(header) {
      const key = present(header, API_KEY_HEADER);
      return key === undefined ? undefined : entryOf(key).match?.credential;
    },
  };
}

function jwtVerifier(settings: AuthSettings): Method {
  const jwt = settings.jwt;
  if (!jwt || (jwt.jwksUrl === undefined) === (jwt.secret === undefined)) {
    throw new TypeError('jwt authentication needs exactly one of settings.jwt.jwksUrl and settings.jwt.secret');
  }
  const { getKey, algorithms } = jwt.jwksUrl
    ? { getKey: remoteKeys(new URL(jwt.jwksUrl)), algorithms: ASYMMETRIC_ALGORITHMS }
    : { getKey: sharedSecret(jwt.secret ?? ''), algorithms: ['HS256'] };
  const options = {
    algorithms,
    clockTolerance: jwt.clockToleranceSeconds,
    // A token without an expiry would be good forever.
    requiredClaims: ['sub', 'exp'],
    ...(jwt.issuer !== undefined && { issuer: jwt.issuer }),
    ...(jwt.audience !== undefined && { audience: jwt.audience }),
  };
  const invalid = (detail: string) =>
    new AuthenticationError('Invalid or expired token', 'Bearer error="invalid_token"', detail);
  // What decides whether a token is good besides the token itself: change any of these, and the
  // sessions made from tokens checked under the old ones end.
  const checkedBy = [jwt.jwksUrl, jwt.secret, jwt.issuer, jwt.audience, jwt.groupsClaim];
  const credential = JSON.stringify(['jwt', createHash('sha256').update(JSON.stringify(checkedBy)).digest('hex')]);

  const verify: Verifier = (header) => {
    const authorization = present(header, 'authorization');
    if (authorization === undefined) return undefined;
    const token = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(authorization)?.[1];
    if (token === undefined) {
      return Promise.reject(
        new AuthenticationError(
          'Authorization must be a Bearer token',
          'Bearer error="invalid_request"',
          'authorization header is not "Bearer <token>"',
        ),
      );
    }
    return jwtVerify(token, getKey, options).then(
      ({ payload }) => {
        if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('sub claim is not a non-empty string');
        const groups = groupsFrom(payload, jwt.groupsClaim);
        if (!groups) throw invalid(`${jwt.groupsClaim} claim is neither a string array nor a string`);
        return { id: payload.sub, groups, via: 'jwt' } satisfies Principal;
      },
      (error: unknown) => {
        if (error instanceof AuthUnavailableError) throw error;
        throw invalid(describeJoseError(error));
      },
    );
  };
  return {
    verify,
    accepted: [credential],
    credentialOf: (header) => (present(header, 'authorization') === undefined ? undefined : credential),
  };
}

/** The JWKS, fetched once and cached by jose (refetched when a token names an unknown key). */
function remoteKeys(url: URL): JWTVerifyGetKey {
  const jwks = createRemoteJWKSet(url);
  return async (protectedHeader: JWSHeaderParameters, token: FlattenedJWSInput) => {
    try {
      return await jwks(protectedHeader, token);
    } catch (error) {
      if (jwksUnreachable(error))
        throw new AuthUnavailableError(`JWKS ${url.href}: ${describeJoseError(error)}`, error);
      throw error;
    }
  };
}

/** Fetch failures (network, timeout, non-200, not a JWKS) as opposed to a token naming no known key. */
function jwksUnreachable(error: unknown): boolean {
  if (!(error instanceof joseErrors.JOSEError)) return true;
  return ['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC'].includes(error.code);
}

function sharedSecret(secret: string): JWTVerifyGetKey {
  const key = new TextEncoder().encode(secret);
  return () => key;
}

/** The caller's groups: a string array, or one string separated by spaces or commas; [] when absent. */
function groupsFrom(payload: JWTPayload, claim: string): string[] | undefined {
  const value = payload[claim];
  if (value === undefined) return [];
  if (typeof value === 'string') return splitList(value, /[\s,]+/);
  if (Array.isArray(value) && value.every((group): group is string => typeof group === 'string')) {
    return value.filter((group) => group !== '');
  }
  return undefined;
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `${error.code} (${error.claim}): ${error.message}`;
  if (error instanceof joseErrors.JOSEError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function trustedHeaderVerifier(settings: AuthSettings): Verifier {
  const { trustedHeader, trustedGroupsHeader } = settings;
  if (!trustedHeader) throw new TypeError('trusted-header authentication needs settings.trustedHeader');
  const fromProxy = proxySecretCheck(settings);
  return (header) => {
    const id = present(header, trustedHeader)?.trim();
    if (id === undefined) return undefined;
    if (!fromProxy(header)) {
      // Someone who is not the proxy set the identity header: a forgery, not a missing credential.
      return Promise.reject(
        new AuthenticationError('Invalid credentials', 'TrustedProxy', 'identity header without the proxy secret'),
      );
    }
    const groups = trustedGroupsHeader ? splitList(header(trustedGroupsHeader) ?? '', /,/) : [];
    return Promise.resolve({ id, groups, via: 'trusted-header' } satisfies Principal);
  };
}

function proxySecretCheck({ trustedProxySecret }: AuthSettings): (header: HeaderLookup) => boolean {
  if (!trustedProxySecret) throw new TypeError('trusted-header authentication needs settings.trustedProxySecret');
  const expected = createHash('sha256').update(trustedProxySecret).digest();
  return (header) => {
    // Hashed first: compared in constant time whatever the length sent.
    const sent = createHash('sha256')
      .update(header(TRUSTED_PROXY_SECRET_HEADER) ?? '')
      .digest();
    return timingSafeEqual(sent, expected);
  };
}

function splitList(list: string, separator: RegExp): string[] {
  return list
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
