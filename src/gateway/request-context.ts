/**
 * Per-request lifetime for the SDK adapters. The SDK's SSE loop never listens for the client going
 * away, so a dropped stream would keep its history long-poll open for as long as the task waits
 * (days for an approval). Here every request gets an AbortSignal that fires when the connection
 * closes; it reaches the request handler through the `User` the adapters' userBuilder returns.
 * Open SSE responses also get keepalive comments so idle proxies do not cut long waits.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import * as grpc from '@grpc/grpc-js';
import { status as grpcStatus } from '@grpc/grpc-js';
import { IDEMPOTENCY_KEY_HEADER, type Caller } from '../protocol/contract.js';
import { AuthenticationError, AuthUnavailableError, type Authenticator } from './auth/authenticator.js';
import { logger } from '../logging.js';
import type { Principal } from './auth/principal.js';

export const SSE_KEEPALIVE_MS = 15_000;

/** The gateway's transports: JSON-RPC, HTTP+JSON and gRPC. */
export type Transport = 'jsonrpc' | 'rest' | 'grpc';

/**
 * What one request learnt that the SDK adapters have no way to say: they answer every error that
 * is not an A2A error as an internal one, so the gateway notes here that Temporal was out of reach
 * and the transport turns that into 503 + Retry-After (HTTP) or UNAVAILABLE (gRPC).
 */
export interface RequestOutcome {
  temporalUnavailable?: boolean;
}

/** Seconds a client should wait before retrying while Temporal is out of reach. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * The caller of one request, with that request's lifetime: the principal authentication
 * established, or anonymous when the gateway runs without authentication (development).
 */
export class GatewayUser implements User {
  constructor(
    /** Which of the gateway's transports the request came by (for its metrics and span). */
    readonly transport: Transport,
    readonly signal: AbortSignal,
    readonly outcome: RequestOutcome,
    readonly principal?: Principal,
    /** Without authentication a client may name who answers (metadata.responder); with it, never. */
    readonly mayClaimName = true,
    /** The request's `Idempotency-Key` (HTTP header or gRPC metadata), as the client sent it. */
    readonly idempotencyKey?: string,
  ) {}
  get isAuthenticated(): boolean {
    return this.principal !== undefined;
  }
  get userName(): string {
    return this.principal?.id ?? '';
  }
}

interface RequestState {
  signal: AbortSignal;
  outcome: RequestOutcome;
}

const requestStates = new WeakMap<Request, RequestState>();

/**
 * Express middleware: abort on disconnect, keepalive comments while an event stream is open, and
 * a 503 with Retry-After instead of the SDK's 500 (or JSON-RPC's 200) when Temporal was out of reach.
 */
export function requestLifetime(keepaliveMs = SSE_KEEPALIVE_MS) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const controller = new AbortController();
    const outcome: RequestOutcome = {};
    requestStates.set(req, { signal: controller.signal, outcome });
    answerUnavailableAs503(res, outcome);
    const keepalive = setInterval(() => {
      const type = String(res.getHeader('content-type') ?? '');
      if (res.headersSent && type.startsWith('text/event-stream') && !res.writableEnded) res.write(': keepalive\n\n');
    }, keepaliveMs);
    keepalive.unref();
    // 'close' on the response fires when it finished or when the connection dropped, whichever first.
    res.on('close', () => {
      clearInterval(keepalive);
      controller.abort();
    });
    next();
  };
}

function answerUnavailableAs503(res: Response, outcome: RequestOutcome): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    if (outcome.temporalUnavailable && !res.headersSent) {
      res.status(503).setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      const error = (body as { error?: { code?: unknown; status?: string } } | undefined)?.error;
      // HTTP+JSON bodies carry the HTTP status twice; JSON-RPC keeps its own error code.
      if (error && typeof error.status === 'string') Object.assign(error, { code: 503, status: 'UNAVAILABLE' });
    }
    return json(body);
  };
}

const requestPrincipals = new WeakMap<Request, Principal>();

/**
 * Express middleware in front of JSON-RPC and HTTP+JSON: authenticates the caller, or answers 401
 * (with a challenge, and nothing about which tasks exist) in the transport's error shape.
 */
export function authenticateHttp(authenticator: Authenticator, shape: 'jsonrpc' | 'rest'): RequestHandler {
  return (req, res, next) => {
    authenticator
      .authenticate((name) => req.get(name))
      .then(
        (principal) => {
          if (principal) requestPrincipals.set(req, principal);
          next();
        },
        (error: unknown) => {
          if (error instanceof AuthUnavailableError) {
            // The identity provider (JWKS) is out of reach: not the caller's fault, and worth a retry.
            logger.warn({ detail: error.detail, component: 'gateway' }, 'Authentication unavailable');
            res.status(503).setHeader('Retry-After', '5');
            return void res.json(
              shape === 'jsonrpc'
                ? { jsonrpc: '2.0', id: null, error: { code: -32603, message: AUTH_UNAVAILABLE } }
                : { error: { code: 503, status: 'UNAVAILABLE', message: AUTH_UNAVAILABLE, details: [] } },
            );
          }
          if (!(error instanceof AuthenticationError)) return next(error);
          if (error.detail) logger.info({ detail: error.detail, component: 'gateway' }, 'Authentication refused');
          res.status(401).setHeader('WWW-Authenticate', error.challenge);
          res.json(
            shape === 'jsonrpc'
              ? { jsonrpc: '2.0', id: null, error: { code: UNAUTHENTICATED_JSONRPC_CODE, message: error.message } }
              : { error: { code: 401, status: 'UNAUTHENTICATED', message: error.message, details: [] } },
          );
        },
      );
  };
}

const AUTH_UNAVAILABLE = 'Authentication is unavailable right now; retry later';

/** JSON-RPC has no A2A code for this; the HTTP status (401) is what clients act on. */
const UNAUTHENTICATED_JSONRPC_CODE = -32600;

/** The principal authenticateHttp established for this request, if any. */
export function principalOf(req: Request): string | undefined {
  return requestPrincipals.get(req)?.id;
}

/** The principal authenticateGrpc established for this call, if any. */
export function grpcPrincipalOf(call: GrpcCall): string | undefined {
  return callPrincipals.get(call)?.id;
}

/** The express userBuilder: the request's signal and the principal authenticateHttp established. */
export function expressUserBuilder(authenticator: Authenticator, transport: Exclude<Transport, 'grpc'>) {
  return async (req: Request): Promise<User> => {
    const state = requestStates.get(req) ?? { signal: new AbortController().signal, outcome: {} };
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    const principal = requestPrincipals.get(req);
    return new GatewayUser(transport, state.signal, state.outcome, principal, !authenticator.required, key);
  };
}

type GrpcCall = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;
const callPrincipals = new WeakMap<GrpcCall, Principal>();
const callOutcomes = new WeakMap<GrpcCall, RequestOutcome>();

/** What the call learnt (see RequestOutcome); read when its status is chosen. */
export function grpcOutcomeOf(call: GrpcCall): RequestOutcome | undefined {
  return callOutcomes.get(call);
}

/** gRPC's side of authenticateHttp: the principal from the call's metadata, or UNAUTHENTICATED. */
export async function authenticateGrpc(
  authenticator: Authenticator,
  call: GrpcCall,
): Promise<grpc.ServiceError | undefined> {
  try {
    const principal = await authenticator.authenticate((name) => {
      const value = call.metadata.get(name)[0];
      return typeof value === 'string' ? value : undefined;
    });
    if (principal) callPrincipals.set(call, principal);
    return undefined;
  } catch (error) {
    const unavailable = error instanceof AuthUnavailableError;
    const message =
      error instanceof AuthenticationError ? error.message : unavailable ? AUTH_UNAVAILABLE : 'Authentication failed';
    return Object.assign(new Error(message), {
      code: unavailable ? grpcStatus.UNAVAILABLE : grpcStatus.UNAUTHENTICATED,
      details: message,
      metadata: new grpc.Metadata(),
    });
  }
}

/** The gRPC userBuilder: a call's signal fires when the client cancels or disconnects. */
export function grpcUserBuilder(authenticator: Authenticator) {
  return async (call: GrpcCall): Promise<User> => {
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort());
    const outcome: RequestOutcome = {};
    callOutcomes.set(call, outcome);
    const key = call.metadata.get(IDEMPOTENCY_KEY_HEADER)[0];
    return new GatewayUser(
      'grpc',
      controller.signal,
      outcome,
      callPrincipals.get(call),
      !authenticator.required,
      typeof key === 'string' ? key : undefined,
    );
  };
}

/** The authenticated caller, for ownership and approver checks; undefined without authentication. */
export function callerOf(context: ServerCallContext | undefined): Caller | undefined {
  const user = context?.user;
  if (!(user instanceof GatewayUser) || !user.principal) return undefined;
  return { id: user.principal.id, groups: user.principal.groups };
}

/** The request's signal; one that never fires when the call did not come through these builders. */
export function signalOf(context: ServerCallContext | undefined): AbortSignal {
  const user = context?.user;
  return user instanceof GatewayUser ? user.signal : new AbortController().signal;
}

export function transportOf(context: ServerCallContext | undefined): Transport | 'unknown' {
  const user = context?.user;
  return user instanceof GatewayUser ? user.transport : 'unknown';
}

/** Where to note what the request learnt; a throwaway record when the call did not come through these builders. */
export function outcomeOf(context: ServerCallContext | undefined): RequestOutcome {
  const user = context?.user;
  return user instanceof GatewayUser ? user.outcome : {};
}

export function idempotencyKeyOf(context: ServerCallContext | undefined): string | undefined {
  const user = context?.user;
  return user instanceof GatewayUser ? user.idempotencyKey : undefined;
}

/** Who answers, for the workflow's responder checks and audit timeline. */
export function responderOf(context: ServerCallContext | undefined, metadata: Record<string, unknown> | undefined) {
  const user = context?.user;
  if (user?.isAuthenticated) return user.userName;
  if (user instanceof GatewayUser && !user.mayClaimName) return undefined;
  const claimed = metadata?.['responder'];
  return typeof claimed === 'string' && claimed.length > 0 ? claimed : undefined;
}
