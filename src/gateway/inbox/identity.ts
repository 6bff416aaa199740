/**
 * Who uses the inbox, with the gateway's own identity: behind an authenticating proxy its headers
 * are authenticated on every request, as on the A2A transports; with API keys or JWTs the sign-in
 * form exchanges the credential, once, for a session cookie carrying the principal. Without
 * authentication (development) everyone is anonymous and names themselves when answering.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { decodeJwt } from 'jose';
import { logger } from '../../logging.js';
import {
  AuthenticationError,
  AuthUnavailableError,
  type Authenticator,
  type HeaderLookup,
  API_KEY_HEADER,
} from '../auth/authenticator.js';
import type { Principal } from '../auth/principal.js';
import { CSRF_HEADER, fromThisOrigin, isHttps, refuse } from './guard.js';
import type { Session, SessionKeeper } from './session.js';

/** What every inbox API handler knows about its caller. */
export interface InboxCaller {
  session: Session;
  /** Undefined without authentication (development) or before sign-in. */
  principal?: Principal;
}

type SignInMethod = 'api-key' | 'jwt';

export interface IdentityOptions {
  authenticator: Authenticator;
  sessions: SessionKeeper;
  /** The gateway's public origin (scheme://host:port): what a same-origin request's Origin reads. */
  publicOrigin: string;
  agents: readonly string[];
}

export function callerOf(res: Response): InboxCaller {
  return res.locals['inboxCaller'] as InboxCaller;
}

/** Establishes the caller; a browser without a session gets an anonymous one, for its CSRF token. */
export function identify(options: IdentityOptions): RequestHandler {
  return (req, res, next) => {
    let session = options.sessions.read(req);
    if (!session) {
      session = options.sessions.create();
      options.sessions.write(res, session, isHttps(req, options.publicOrigin));
    }
    const known = session;
    headerPrincipal(options.authenticator, req).then(
      (fromProxy) => {
        const principal = options.authenticator.required ? (fromProxy ?? known.principal) : undefined;
        res.locals['inboxCaller'] = { session: known, ...(principal && { principal }) } satisfies InboxCaller;
        next();
      },
      authFailure(res, next),
    );
  };
}

/**
 * The principal the request's own headers name, when they carry credentials: an authenticating
 * proxy's headers, or an API key or JWT sent as on the A2A transports (the CLI's `inbox`). A browser
 * cannot attach those to another site's request without a CORS preflight, which the inbox never allows.
 */
async function headerPrincipal(authenticator: Authenticator, req: Request): Promise<Principal | undefined> {
  try {
    return await authenticator.authenticate((name) => req.get(name));
  } catch (error) {
    // No proxy headers at all: the session decides. Anything else (a forged header) is refused.
    if (error instanceof AuthenticationError && error.detail === 'no credentials') return undefined;
    throw error;
  }
}

function authFailure(res: Response, next: NextFunction) {
  return (error: unknown) => {
    if (error instanceof AuthUnavailableError) return refuse(res, 503, 'Authentication is unavailable; retry later');
    if (!(error instanceof AuthenticationError)) return next(error);
    if (error.detail) logger.info({ detail: error.detail, component: 'inbox' }, 'Authentication refused');
    refuse(res, 401, error.message, 'signed-out');
  };
}

/** Every state-changing request: from a page of this origin, with the session's CSRF token. */
export function checkCsrf(options: Pick<IdentityOptions, 'sessions' | 'publicOrigin'>): RequestHandler {
  return (req, res, next) => {
    if (!fromThisOrigin(req, options.publicOrigin)) return refuse(res, 403, 'Cross-site request refused', 'csrf');
    if (!options.sessions.checkCsrf(callerOf(res).session, req.get(CSRF_HEADER))) {
      return refuse(res, 403, 'Missing or stale CSRF token; reload the page', 'csrf');
    }
    next();
  };
}

/** The API behind the pages needs a principal whenever the gateway authenticates. */
export function requirePrincipal(authenticator: Authenticator): RequestHandler {
  return (_req, res, next) => {
    if (authenticator.required && !callerOf(res).principal) return refuse(res, 401, 'Sign in first', 'signed-out');
    next();
  };
}

/** GET /me, POST /session (sign in), POST /signout. */
export function sessionRoutes(options: IdentityOptions): express.Router {
  const router = express.Router();
  router.get('/me', (_req, res) => void res.json(describe(options, callerOf(res))));
  router.post('/session', checkCsrf(options), (req, res, next) => {
    signIn(options, req.body as unknown).then(
      (principal) => {
        const notAfter = principal.via === 'jwt' ? jwtExpiry(req.body as { credential: string }) : undefined;
        const session = options.sessions.create(principal, notAfter);
        options.sessions.write(res, session, isHttps(req, options.publicOrigin));
        res.json(describe(options, { session, principal }));
      },
      authFailure(res, next),
    );
  });
  router.post('/signout', checkCsrf(options), (req, res) => {
    options.sessions.revoke(callerOf(res).session);
    const session = options.sessions.create();
    options.sessions.write(res, session, isHttps(req, options.publicOrigin));
    res.json(describe(options, { session }));
  });
  return router;
}

function signInMethods(authenticator: Authenticator): SignInMethod[] {
  return authenticator.methods.filter((method): method is SignInMethod => method === 'api-key' || method === 'jwt');
}

function describe(options: IdentityOptions, caller: InboxCaller) {
  const { authenticator, sessions } = options;
  const { principal, session } = caller;
  const mode = !authenticator.required ? 'development' : principal ? 'signed-in' : 'signed-out';
  return {
    mode,
    csrfToken: sessions.csrfToken(session),
    signInMethods: signInMethods(authenticator),
    agents: options.agents,
    ...(principal && { principal: { id: principal.id, groups: principal.groups, via: principal.via } }),
    ...(principal && principal.via !== 'trusted-header' && { expiresAt: new Date(session.expiresAt).toISOString() }),
  };
}

/** Authenticates a credential typed into the sign-in form exactly as the A2A transports would. */
async function signIn(options: IdentityOptions, body: unknown): Promise<Principal> {
  const { method, credential } = (body ?? {}) as { method?: unknown; credential?: unknown };
  const methods: readonly string[] = signInMethods(options.authenticator);
  if (typeof method !== 'string' || !methods.includes(method) || typeof credential !== 'string' || !credential.trim()) {
    throw new AuthenticationError('Choose a sign-in method and enter your credential', 'ApiKey');
  }
  const headers: HeaderLookup = (name) => {
    if (method === 'api-key' && name === API_KEY_HEADER) return credential.trim();
    if (method === 'jwt' && name === 'authorization') return `Bearer ${credential.trim()}`;
    return undefined;
  };
  const principal = await options.authenticator.authenticate(headers);
  if (!principal) throw new AuthenticationError('Authentication required', 'ApiKey');
  return principal;
}

/** A session from a JWT ends when the token would have. */
function jwtExpiry(body: { credential: string }): number | undefined {
  const exp = decodeJwt(body.credential.trim()).exp;
  return exp === undefined ? undefined : exp * 1000;
}
