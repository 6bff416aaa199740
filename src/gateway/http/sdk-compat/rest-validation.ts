/**
 * Checks HTTP+JSON requests before the SDK's REST adapter sees them. The adapter answers 500 for a
 * path that is not valid percent-encoded UTF-8 (its router throws while decoding the task ID), for a
 * body that is not an object on the tenant routes (it sets `body.tenant`) and for a message its
 * `fromJSON` cannot read (`parts: [null]`), and it takes a message without a role. A message is
 * checked with the schema JSON-RPC params are (request-schemas.ts).
 *
 * Written against @a2a-js/sdk 1.3.0 (`restHandler`). Goes away when the adapter answers a path it
 * cannot decode and a body that is no object 400 (RequestMalformedError), and checks messages as
 * request-schemas.ts says there.
 */
import type { Request, RequestHandler } from 'express';
import { RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { fieldPath } from '../../../protocol/message-checks.js';
import { paramsProblem } from './request-schemas.js';

/** SendMessage and SendStreamingMessage, with or without a tenant segment, as the SDK routes them. */
const SEND_PATH = /^(?:\/[^/]+)?\/message:(?:send|stream)\/?$/i;

export const validateRest: RequestHandler = (req, res, next) => {
  const problem = pathProblem(req.path) ?? queryProblem(req.query) ?? bodyProblem(req);
  if (!problem) return next();
  res.status(400).json(toRestErrorBody(new RequestMalformedError(problem), 400));
};

function pathProblem(path: string): string | undefined {
  try {
    decodeURIComponent(path);
    return undefined;
  } catch {
    return 'The request path is not valid percent-encoded UTF-8';
  }
}

/** Every parameter is one string: a repeated one (an array) would reach the handler as a non-string. */
function queryProblem(query: Request['query']): string | undefined {
  const repeated = Object.entries(query).find(([, value]) => typeof value !== 'string');
  return repeated && `Query parameter ${fieldPath([repeated[0]])} must be given once`;
}

function bodyProblem(req: Request): string | undefined {
  const body: unknown = req.body;
  if (body === undefined) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The request body must be a JSON object';
  return req.method === 'POST' && SEND_PATH.test(req.path) ? paramsProblem('SendMessage', body) : undefined;
}
