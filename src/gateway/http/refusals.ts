/**
 * Answers the gateway gives itself, before a request reaches the SDK's handlers (authentication,
 * the new-task limit, the host check, an unknown path): one error shape
 * per transport, built here only. HTTP+JSON bodies follow AIP-193 as the SDK's REST adapter does.
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Response } from 'express';
import type { Logger } from 'pino';

/** What is refused, for every transport: the HTTP status and its google.rpc code name, the JSON-RPC code. */
export interface Refusal {
  httpStatus: number;
  status: string;
  jsonRpcCode: number;
  message: string;
  /** Sent as Retry-After (seconds) when the caller may simply try again. */
  retryAfterSeconds?: number;
}

/** An HTTP+JSON error body (AIP-193). */
export function restErrorBody(httpStatus: number, status: string, message: string) {
  return { error: { code: httpStatus, status, message, details: [] } };
}

/** Answers an HTTP request with a refusal in its transport's shape; JSON-RPC answers `id` when known. */
export function sendRefusal(res: Response, shape: 'jsonrpc' | 'rest', refusal: Refusal, id: unknown = null): void {
  if (refusal.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(refusal.retryAfterSeconds));
  res
    .status(refusal.httpStatus)
    .json(
      shape === 'jsonrpc'
        ? { jsonrpc: '2.0', id, error: { code: refusal.jsonRpcCode, message: refusal.message } }
        : restErrorBody(refusal.httpStatus, refusal.status, refusal.message),
    );
}

/** A gRPC call's refusal, as a handler passes it to its callback or emits it on its stream. */
export function grpcRefusal(code: grpc.status, message: string): grpc.ServiceError {
  return Object.assign(new Error(message), { code, details: message, metadata: new grpc.Metadata() });
}

/**
 * An unexpected error: logged under a short reference, answered with a message that gives the
 * reference and nothing of the error itself (its text may hold internals).
 */
export function logInternalError(log: Logger, error: unknown, fields: Record<string, unknown> = {}): string {
  const ref = randomUUID().slice(0, 8);
  log.error({ err: error, ref, ...fields }, 'Internal error');
  return `Internal error (ref ${ref})`;
}
