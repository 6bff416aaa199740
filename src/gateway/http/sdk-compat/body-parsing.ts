/**
 * JSON body parsing ahead of the SDK adapters. Their own `express.json()` keeps the 100 kB default
 * and answers an oversized body with an HTML 413; parsing first with a larger limit (the SDK's
 * parser then skips the already-read body) lets oversized and malformed bodies get JSON errors in
 * each transport's own shape. A parsed body is also refused when it nests deeper than any request
 * needs or holds a string that is not valid Unicode, before any handler walks it.
 *
 * Written against @a2a-js/sdk 1.3.0 (`jsonRpcHandler` calls `express.json()` with no options,
 * `restHandler` with only its media types). Goes away when the adapters take a body size limit and
 * answer a body they cannot take (too large, not JSON) in the transport's error shape; the depth and
 * Unicode checks are this gateway's own and would then move next to the request handler.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { MAX_NESTING_DEPTH, jsonProblem } from '../../../protocol/message-checks.js';

export const BODY_LIMIT = 10 * 1024 * 1024;

/**
 * Twice what metadata and data may nest: room for the envelope around them, and for the message
 * checks to name the field that nests too deep in all but absurd requests.
 */
const MAX_BODY_DEPTH = 2 * MAX_NESTING_DEPTH;

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** A body that parsed but that no request may carry. */
class BodyContentError extends Error implements BodyParserError {
  readonly type = 'entity.content.invalid';
  readonly status = 400;
}

interface Problem {
  status: number;
  message: string;
  /** Not JSON at all (JSON-RPC's parse error), as opposed to JSON that no request may carry. */
  unparsable?: true;
}

function problem(error: BodyParserError): Problem | undefined {
  if (error.type === 'entity.too.large')
    return { status: 413, message: `Request body is larger than ${BODY_LIMIT / 1024 / 1024} MB` };
  if (error instanceof BodyContentError) return { status: 400, message: error.message };
  if (error.type === 'entity.parse.failed' || error instanceof SyntaxError) {
    return { status: 400, message: 'Invalid JSON payload.', unparsable: true };
  }
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    return { status: error.status, message: error.message };
  }
  return undefined;
}

/** The JSON parser, then the content check on what it parsed. */
function parseJson(options: Parameters<typeof express.json>[0]): RequestHandler {
  const parser = express.json(options);
  return (req, res, next) =>
    parser(req, res, (error?: unknown) => {
      if (error) return next(error);
      const found = req.body === undefined ? undefined : jsonProblem(req.body, 'body', MAX_BODY_DEPTH);
      next(found ? new BodyContentError(found) : undefined);
    });
}

/** For JSON-RPC: only `application/json` bodies; other types are left to the SDK's -32005 guard. */
export function jsonRpcBody(): [RequestHandler, ErrorRequestHandler] {
  const onError: ErrorRequestHandler = (error: BodyParserError, _req, res, next) => {
    const found = problem(error);
    if (!found) return next(error);
    // Parse errors are -32700; a body no request may carry is an invalid request. Both are HTTP 200
    // as the SDK answers; a too-large body keeps its 413.
    const code = found.unparsable ? -32700 : -32600;
    res
      .status(found.status === 400 ? 200 : found.status)
      .json({ jsonrpc: '2.0', id: null, error: { code, message: found.message } });
  };
  // Not strict: a body of `true` is JSON, just no request (-32600 from the validation after this).
  return [parseJson({ limit: BODY_LIMIT, strict: false }), onError];
}

/**
 * For HTTP+JSON: the SDK's accepted media types, errors as AIP-193 bodies. A body of exactly `null`
 * is no body: Go's encoding/json writes a nil payload so, and a2a-go 2.3 sends it with
 * `Content-Type: application/json` on every call that has no body (GetTask, ListTasks, CancelTask,
 * SubscribeToTask, the push-config reads and deletes, GetExtendedAgentCard).
 */
export function restBody(): [RequestHandler, ErrorRequestHandler] {
  const onError: ErrorRequestHandler = (error: BodyParserError, _req, res, next) => {
    const found = problem(error);
    if (!found) return next(error);
    res.status(found.status).json(toRestErrorBody(new RequestMalformedError(found.message), found.status));
  };
  const parser = parseJson({ limit: BODY_LIMIT, strict: false, type: ['application/json', 'application/a2a+json'] });
  const parse: RequestHandler = (req, res, next) =>
    parser(req, res, (error?: unknown) => {
      if (req.body === null) req.body = undefined;
      next(error);
    });
  return [parse, onError];
}
