/**
 * Who is calling, and the request's lifetime, as the request handler sees them: authentication on
 * every transport, and the `User` the SDK adapters' userBuilder returns, which carries the
 * principal, the request's signal and outcome (sdk-compat/request-lifetime.ts) and its idempotency key.
 */
import type { Request, RequestHandler } from 'express';
import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import { status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { CLIENT_METADATA, IDEMPOTENCY_KEY_HEADER } from '../../protocol/contract.js';
import type { AnswerChannel } from '../../protocol/answer-channel.js';
import type { Caller } from '../../protocol/caller.js';
import { AuthenticationError, AuthUnavailableError, type Authenticator } from '../auth/authenticator.js';
import { logger } from '../../logging.js';
import type { Principal } from '../auth/principal.js';
import { callLifetime, lifetimeOf, type GrpcCall, type RequestOutcome } from './sdk-compat/index.js';
import { grpcRefusal, sendRefusal } from './refusals.js';

/** The gateway's transports: JSON-RPC, HTTP+JSON and gRPC; and the approvals inbox's pages (src/gateway/inbox). */
/** How a request reached the gateway: an A2A transport, or the inbox, a Slack button, an email link. */
export type Transport = 'jsonrpc' | 'rest' | 'grpc' | 'inbox' | 'slack' | 'email';

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
            return sendRefusal(res, shape, {
              httpStatus: 503,
              status: 'UNAVAILABLE',
              jsonRpcCode: -32603,
              message: AUTH_UNAVAILABLE,
              retryAfterSeconds: 5,
            });
          }
          if (!(error instanceof AuthenticationError)) return next(error);
          if (error.detail) logger.info({ detail: error.detail, component: 'gateway' }, 'Authentication refused');
          res.setHeader('WWW-Authenticate', error.challenge);
          sendRefusal(res, shape, {
            httpStatus: 401,
            status: 'UNAUTHENTICATED',
            jsonRpcCode: UNAUTHENTICATED_JSONRPC_CODE,
            message: error.message,
          });
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
    const state = lifetimeOf(req);
    const key = req.get(IDEMPOTENCY_KEY_HEADER);
    const principal = requestPrincipals.get(req);
    return new GatewayUser(transport, state.signal, state.outcome, principal, !authenticator.required, key);
  };
}

const callPrincipals = new WeakMap<GrpcCall, Principal>();

/** gRPC's side of authenticateHttp: the principal from the call's metadata, or UNAUTHENTICATED. */
export async function authenticateGrpc(
  authenticator: Authenticator,
  call: GrpcCall,
): Promise<ServiceError | undefined> {
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
    return grpcRefusal(unavailable ? grpcStatus.UNAVAILABLE : grpcStatus.UNAUTHENTICATED, message);
  }
}

/** The gRPC userBuilder: a call's signal fires when the client cancels or disconnects. */
export function grpcUserBuilder(authenticator: Authenticator) {
  return async (call: GrpcCall): Promise<User> => {
    const { signal, outcome } = callLifetime(call);
    const key = call.metadata.get(IDEMPOTENCY_KEY_HEADER)[0];
    return new GatewayUser(
      'grpc',
      signal,
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

/**
 * Who sends a message on this call, as the task's Update takes it (`Sender` in
 * src/gateway/a2a/task-messages.ts): the same rules for an A2A client and for a person on the
 * gateway's own pages and channels.
 */
export function senderOf(context: ServerCallContext | undefined, metadata: Record<string, unknown> | undefined) {
  const user = context?.user;
  const idempotencyKey = user instanceof GatewayUser ? user.idempotencyKey : undefined;
  return {
    responder: responderOf(context, metadata),
    caller: callerOf(context),
    channel: channelOf(context, metadata),
    ...(idempotencyKey !== undefined && { idempotencyKey }),
  };
}

/** Who answers, for the workflow's responder checks and audit timeline. */
export function responderOf(context: ServerCallContext | undefined, metadata: Record<string, unknown> | undefined) {
  const user = context?.user;
  if (user?.isAuthenticated) return user.userName;
  if (user instanceof GatewayUser && !user.mayClaimName) return undefined;
  const claimed = metadata?.['responder'];
  return typeof claimed === 'string' && claimed.length > 0 ? claimed : undefined;
}

/**
 * The way a message came, for decision receipts and the audit: the gateway's own transports and
 * pages say it; over A2A, the a2a-temporal CLI names itself in the message's metadata.
 */
function channelOf(
  context: ServerCallContext | undefined,
  metadata: Record<string, unknown> | undefined,
): AnswerChannel {
  const transport = transportOf(context);
  if (transport === 'inbox' || transport === 'slack' || transport === 'email') return transport;
  return metadata?.[CLIENT_METADATA] === 'cli' ? 'cli' : 'a2a';
}
