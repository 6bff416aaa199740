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
import type { Caller } from '../protocol/contract.js';
import { AuthenticationError, AuthUnavailableError, type Authenticator } from './auth/authenticator.js';
import { logger } from '../logging.js';
import type { Principal } from './auth/principal.js';

export const SSE_KEEPALIVE_MS = 15_000;

/**
 * The caller of one request, with that request's lifetime: the principal authentication
 * established, or anonymous when the gateway runs without authentication (development).
 */
export class GatewayUser implements User {
  constructor(
    readonly signal: AbortSignal,
    readonly principal?: Principal,
    /** Without authentication a client may name who answers (metadata.responder); with it, never. */
    readonly mayClaimName = true,
  ) {}
  get isAuthenticated(): boolean {
    return this.principal !== undefined;
  }
  get userName(): string {
    return this.principal?.id ?? '';
  }
}

const requestSignals = new WeakMap<Request, AbortSignal>();

/** Express middleware: abort on disconnect, keepalive comments while an event stream is open. */
export function requestLifetime(keepaliveMs = SSE_KEEPALIVE_MS) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const controller = new AbortController();
    requestSignals.set(req, controller.signal);
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
export function expressUserBuilder(authenticator: Authenticator) {
  return async (req: Request): Promise<User> => {
    const signal = requestSignals.get(req) ?? new AbortController().signal;
    return new GatewayUser(signal, requestPrincipals.get(req), !authenticator.required);
  };
}

type GrpcCall = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;
const callPrincipals = new WeakMap<GrpcCall, Principal>();

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
    return new GatewayUser(controller.signal, callPrincipals.get(call), !authenticator.required);
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

/** Who answers, for the workflow's responder checks and audit timeline. */
export function responderOf(context: ServerCallContext | undefined, metadata: Record<string, unknown> | undefined) {
  const user = context?.user;
  if (user?.isAuthenticated) return user.userName;
  if (user instanceof GatewayUser && !user.mayClaimName) return undefined;
  const claimed = metadata?.['responder'];
  return typeof claimed === 'string' && claimed.length > 0 ? claimed : undefined;
}
