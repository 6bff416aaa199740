/**
 * JSON body parsing ahead of the SDK adapters. Their own `express.json()` keeps the 100 kB default
 * and answers an oversized body with an HTML 413; parsing first with a larger limit (the SDK's
 * parser then skips the already-read body) lets oversized and malformed bodies get JSON errors in
 * each transport's own shape.
 */
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';

export const BODY_LIMIT = 10 * 1024 * 1024;

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

function problem(error: BodyParserError): { status: number; message: string } | undefined {
  if (error.type === 'entity.too.large')
    return { status: 413, message: `Request body is larger than ${BODY_LIMIT / 1024 / 1024} MB` };
  if (error.type === 'entity.parse.failed' || error instanceof SyntaxError) {
    return { status: 400, message: 'Invalid JSON payload.' };
  }
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    return { status: error.status, message: error.message };
  }
  return undefined;
}

/** For JSON-RPC: only `application/json` bodies; other types are left to the SDK's -32005 guard. */
export function jsonRpcBody(): [RequestHandler, ErrorRequestHandler] {
  const onError: ErrorRequestHandler = (error: BodyParserError, _req, res, next) => {
    const found = problem(error);
    if (!found) return next(error);
    // Parse errors are -32700 (HTTP 200 as the SDK does); a too-large body is an invalid request.
    const code = found.status === 400 ? -32700 : -32600;
    res
      .status(found.status === 400 ? 200 : found.status)
      .json({ jsonrpc: '2.0', id: null, error: { code, message: found.message } });
  };
  return [express.json({ limit: BODY_LIMIT }), onError];
}

/** For HTTP+JSON: the SDK's accepted media types, errors as AIP-193 bodies. */
export function restBody(): [RequestHandler, ErrorRequestHandler] {
  const onError: ErrorRequestHandler = (error: BodyParserError, _req, res, next) => {
    const found = problem(error);
    if (!found) return next(error);
    res.status(found.status).json(toRestErrorBody(new RequestMalformedError(found.message), found.status));
  };
  return [
    express.json({ limit: BODY_LIMIT, strict: false, type: ['application/json', 'application/a2a+json'] }),
    onError,
  ];
}
