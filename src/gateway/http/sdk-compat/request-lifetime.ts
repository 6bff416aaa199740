/**
 * Per-request lifetime for the SDK adapters. Their SSE loops never listen for the client going away,
 * so a dropped stream would keep its history long-poll open for as long as the task waits (days for
 * an approval). Here every request gets an AbortSignal that fires when the connection closes (HTTP)
 * or the call is cancelled (gRPC); it reaches the request handler through the `User` the adapters'
 * userBuilder returns (request-context.ts). Open SSE responses also get keepalive comments so idle
 * proxies do not cut long waits. And since the adapters answer every error they do not map (Temporal
 * being out of reach among them) as an internal one, such a request is answered 503 + Retry-After here
 * (UNAVAILABLE on gRPC: grpc-status.ts). An internal error the adapters raise themselves, outside the
 * request handler (their v0.3 converter's TypeErrors), is answered with its text: here it becomes
 * "Internal error (ref …)" with the text in the log, as the handler's own are (a2a/guarded-handler.ts).
 *
 * Written against @a2a-js/sdk 1.3.0: `jsonRpcHandler` and `restHandler` never listen for 'close' and
 * iterate the handler's stream until it ends, `grpcService` never listens for 'cancelled',
 * `ServerCallContext` carries no AbortSignal, and a non-A2A error is 500 (HTTP+JSON) or -32603 with
 * 200/500 (JSON-RPC), its own message as the answer's. Goes away when the SDK gives
 * `ServerCallContext` a signal that fires when the client goes away (and stops reading the stream
 * then), writes SSE keepalives itself, lets a handler's error choose its HTTP status and headers, and
 * lets the server log and word the internal errors it raises itself.
 */
import type { NextFunction, Request, Response } from 'express';
import type { ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import { logger } from '../../../logging.js';
import { logInternalError } from '../refusals.js';

export const SSE_KEEPALIVE_MS = 15_000;

/** Seconds a client should wait before retrying while Temporal is out of reach or busy. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * What one request learnt that the SDK adapters have no way to say: the gateway notes here that
 * Temporal was out of reach or busy, and the transport turns that into 503 + Retry-After (HTTP) or
 * UNAVAILABLE (gRPC).
 */
export interface RequestOutcome {
  retryLater?: boolean;
}

/** One request's lifetime: a signal that fires when its client goes away, and what it learnt. */
export interface Lifetime {
  signal: AbortSignal;
  outcome: RequestOutcome;
}

export type GrpcCall = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>;

const requestLifetimes = new WeakMap<Request, Lifetime>();

/**
 * Why a request's signal fires. One instance for all requests: `abort()` without a reason builds a
 * DOMException with a stack trace per request, a measurable share of closing a thousand streams at once.
 */
const CLIENT_GONE = new DOMException('The request ended or its client went away', 'AbortError');
const callOutcomes = new WeakMap<GrpcCall, RequestOutcome>();

/**
 * Express middleware: abort on disconnect, keepalive comments while an event stream is open, a 503
 * with Retry-After instead of the SDK's 500 (or JSON-RPC's 200) when Temporal was out of reach or busy, and a
 * log reference instead of the text of an internal error the SDK raised itself.
 */
export function requestLifetime(keepaliveMs = SSE_KEEPALIVE_MS) {
  const keepalives = new KeepaliveTicker(keepaliveMs);
  return (req: Request, res: Response, next: NextFunction): void => {
    const controller = new AbortController();
    const outcome: RequestOutcome = {};
    requestLifetimes.set(req, { signal: controller.signal, outcome });
    answerUnavailableAs503(res, outcome);
    referenceInternalErrors(res, outcome);
    keepalives.add(res);
    // 'close' on the response fires when it finished or when the connection dropped, whichever first.
    res.on('close', () => {
      keepalives.delete(res);
      controller.abort(CLIENT_GONE);
    });
    next();
  };
}

/**
 * Keepalive comments for every open event stream, all written in one tick every `intervalMs` (a
 * stream's first one comes within that interval). A timer per stream woke the process once per
 * stream instead (bench/README.md, path 5).
 */
class KeepaliveTicker {
  private readonly responses = new Set<Response>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly intervalMs: number) {}

  add(res: Response): void {
    this.responses.add(res);
    this.timer ??= setInterval(() => this.tick(), this.intervalMs).unref();
  }

  delete(res: Response): void {
    this.responses.delete(res);
    if (this.responses.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    for (const res of this.responses) {
      const type = String(res.getHeader('content-type') ?? '');
      if (res.headersSent && type.startsWith('text/event-stream') && !res.writableEnded) res.write(': keepalive\n\n');
    }
  }
}

function answerUnavailableAs503(res: Response, outcome: RequestOutcome): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    if (outcome.retryLater && !res.headersSent) {
      res.status(503).setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      const error = (body as { error?: { code?: unknown; status?: string } } | undefined)?.error;
      // HTTP+JSON bodies carry the HTTP status twice; JSON-RPC keeps its own error code.
      if (error && typeof error.status === 'string') Object.assign(error, { code: 503, status: 'UNAVAILABLE' });
    }
    return json(body);
  };
}

/** What the gateway's own internal errors say (refusals.ts): the SDK's other ones say more. */
const REFERENCED = /^Internal error \(ref [0-9a-f]{8}\)$/;

interface ErrorAnswer {
  jsonrpc?: unknown;
  error?: { code?: unknown; status?: unknown; message?: unknown };
}

/** The error of an answer that reports an internal one: JSON-RPC -32603, or HTTP+JSON INTERNAL (AIP-193). */
function internalErrorOf(body: unknown): ErrorAnswer['error'] {
  if (typeof body !== 'object' || body === null) return undefined;
  const { jsonrpc, error } = body as ErrorAnswer;
  if (!error) return undefined;
  return (jsonrpc === '2.0' ? error.code === -32603 : error.status === 'INTERNAL') ? error : undefined;
}

/**
 * An internal error in an answer that carries its own text rather than a reference: the text goes to
 * the log under a reference, and the answer gets the reference. Refusals that say when to retry
 * (Temporal or the identity provider out of reach, the new-task limit) are no internal errors and
 * keep their words.
 */
function referenceInternalErrors(res: Response, outcome: RequestOutcome): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const error = internalErrorOf(body);
    const retryable = outcome.retryLater === true || res.getHeader('retry-after') !== undefined;
    if (error && !retryable && typeof error.message === 'string' && !REFERENCED.test(error.message)) {
      error.message = logInternalError(logger, error.message, { component: 'gateway' });
    }
    return json(body);
  };
}

/** The lifetime `requestLifetime` gave this request; one that never ends when the request did not pass it. */
export function lifetimeOf(req: Request): Lifetime {
  return requestLifetimes.get(req) ?? { signal: new AbortController().signal, outcome: {} };
}

/** gRPC's side of `requestLifetime`: the call's signal fires when the client cancels or disconnects. */
export function callLifetime(call: GrpcCall): Lifetime {
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort(CLIENT_GONE));
  const outcome: RequestOutcome = {};
  callOutcomes.set(call, outcome);
  return { signal: controller.signal, outcome };
}

/** What the call learnt (see RequestOutcome); read when its status is chosen. */
export function grpcOutcomeOf(call: GrpcCall): RequestOutcome | undefined {
  return callOutcomes.get(call);
}
