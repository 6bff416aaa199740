/**
 * Per-request lifetime for the SDK adapters. The SDK's SSE loop never listens for the client going
 * away, so a dropped stream would keep its history long-poll open for as long as the task waits
 * (days for an approval). Here every request gets an AbortSignal that fires when the connection
 * closes; it reaches the request handler through the `User` the adapters' userBuilder returns.
 * Open SSE responses also get keepalive comments so idle proxies do not cut long waits.
 */
import type { NextFunction, Request, Response } from 'express';
import type { ServerCallContext, User } from '@a2a-js/sdk/server';
import type * as grpc from '@grpc/grpc-js';

export const SSE_KEEPALIVE_MS = 15_000;

/**
 * The caller of one request, with that request's lifetime. Named when an authenticating proxy in
 * front of the gateway vouches for it (A2A_TRUSTED_USER_HEADER); anonymous otherwise.
 */
export class GatewayUser implements User {
  constructor(
    readonly signal: AbortSignal,
    private readonly name?: string,
    /** false once a trusted identity header is configured: then nobody may just claim a name. */
    readonly mayClaimName = true,
  ) {}
  get isAuthenticated(): boolean {
    return this.name !== undefined;
  }
  get userName(): string {
    return this.name ?? '';
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

/**
 * The express userBuilder: hands the request's signal to the handler, and the user named by the
 * trusted header, if one is configured (the proxy must strip it from what clients send).
 */
export function expressUserBuilder(trustedUserHeader?: string) {
  return async (req: Request): Promise<User> => {
    const signal = requestSignals.get(req) ?? new AbortController().signal;
    if (!trustedUserHeader) return new GatewayUser(signal);
    const name = req.get(trustedUserHeader);
    return new GatewayUser(signal, name && name.length <= MAX_NAME_CHARS ? name : undefined, false);
  };
}

const MAX_NAME_CHARS = 256;

/** The gRPC userBuilder: a call's signal fires when the client cancels or disconnects. */
export async function grpcUser(
  call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
): Promise<User> {
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort());
  return new GatewayUser(controller.signal);
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
