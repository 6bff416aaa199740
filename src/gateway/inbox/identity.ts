/**
 * Who uses the inbox, with the gateway's own identity: behind an authenticating proxy its headers
 * are authenticated on every request, as on the A2A transports; with API keys or JWTs the sign-in
 * form exchanges the credential, once, for a session cookie carrying the principal, good while the
 * credential is accepted and until it signs out. Without authentication (development) everyone is
 * anonymous and names themselves when answering.
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
import type { Session, SessionKeeper, SignedIn } from './session.js';
import type { SessionStreams } from './session-streams.js';
import type { SignInLimit } from './sign-in-limit.js';
import type { SignOuts } from './sign-outs.js';

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
  signOuts: SignOuts;
  /** The live streams this gateway holds, ended when their session signs out. */
  streams: SessionStreams;
  signInLimit: SignInLimit;
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
    Promise.all([currentSession(options, req), headerPrincipal(options.authenticator, req)]).then(
      ([current, fromProxy]) => {
        let session = current;
        if (!session) {
          session = options.sessions.create();
          options.sessions.write(res, session, isHttps(req, options.publicOrigin));
        }
        const principal = options.authenticator.required ? (fromProxy ?? session.principal) : undefined;
        res.locals['inboxCaller'] = { session, ...(principal && { principal }) } satisfies InboxCaller;
        next();
      },
      authFailure(res, next),
    );
  };
}

/** The request's session, unless it signed out (on any gateway). */
async function currentSession(options: IdentityOptions, req: Request): Promise<Session | undefined> {
  const session = options.sessions.read(req);
  // An anonymous session has nothing to sign out of.
  if (!session?.principal || !options.authenticator.required) return session;
  try {
    return (await options.signOuts.signedOut(session)) ? undefined : session;
  } catch (error) {
    throw new AuthUnavailableError('the sign-out records in Temporal cannot be read', error);
  }
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
    if (error instanceof AuthUnavailableError) {
      logger.warn({ err: error.cause, detail: error.detail, component: 'inbox' }, 'Authentication is unavailable');
      return refuse(res, 503, 'Authentication is unavailable; retry later');
    }
    if (error instanceof SignInLimited) {
      res.setHeader('Retry-After', String(error.seconds));
      return refuse(res, 429, error.message, 'rate-limited');
    }
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
    signIn(options, req).then(
      (signedIn) => {
        const session = options.sessions.create(signedIn);
        options.sessions.write(res, session, isHttps(req, options.publicOrigin));
        res.json(describe(options, { session, principal: signedIn.principal }));
      },
      authFailure(res, next),
    );
  });
  router.post('/signout', checkCsrf(options), (req, res, next) => {
    const { session } = callerOf(res);
    // Recorded before it is answered: once the page says signed out, every gateway refuses the cookie.
    const recorded = session.principal ? options.signOuts.record(session) : Promise.resolve();
    recorded
      .catch((error: unknown) => {
        throw new AuthUnavailableError('recording the sign-out in Temporal failed', error);
      })
      .then(
        () => {
          options.streams.end(session.id);
          const fresh = options.sessions.create();
          options.sessions.write(res, fresh, isHttps(req, options.publicOrigin));
          res.json(describe(options, { session: fresh }));
        },
        authFailure(res, next),
      );
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

/** Too many sign-in attempts from one address, or sign-ins as one principal: 429. */
class SignInLimited extends Error {
  constructor(readonly seconds: number) {
    super(`Too many sign-in attempts; retry in ${seconds} s`);
  }
}

/**
 * Authenticates a credential typed into the sign-in form exactly as the A2A transports would, once
 * the client's address has an attempt left: past the limit the credential is not even looked at.
 */
async function signIn(options: IdentityOptions, req: Request): Promise<SignedIn> {
  const { authenticator, signInLimit } = options;
  const tooFast = signInLimit.attempt(req);
  if (tooFast > 0) throw new SignInLimited(tooFast);
  const { method, credential } = (req.body ?? {}) as { method?: unknown; credential?: unknown };
  const methods: readonly string[] = signInMethods(authenticator);
  if (typeof method !== 'string' || !methods.includes(method) || typeof credential !== 'string' || !credential.trim()) {
    throw new AuthenticationError('Choose a sign-in method and enter your credential', 'ApiKey');
  }
  const headers: HeaderLookup = (name) => {
    if (method === 'api-key' && name === API_KEY_HEADER) return credential.trim();
    if (method === 'jwt' && name === 'authorization') return `Bearer ${credential.trim()}`;
    return undefined;
  };
  const principal = await authenticator.authenticate(headers);
  const accepted = authenticator.credentialOf(headers);
  if (!principal || accepted === undefined) throw new AuthenticationError('Authentication required', 'ApiKey');
  const again = signInLimit.signIn(principal);
  if (again > 0) throw new SignInLimited(again);
  // A session from a JWT ends when the token would have.
  const exp = principal.via === 'jwt' ? decodeJwt(credential.trim()).exp : undefined;
  return { principal, credential: accepted, ...(exp !== undefined && { notAfter: exp * 1000 }) };
}
