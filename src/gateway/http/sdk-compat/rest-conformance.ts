/**
 * Where the SDK's HTTP+JSON adapter differs from what the A2A conformance suite (a2a-tck 1.0-dev)
 * checks: it labels responses `application/a2a+json` (the suite requires `application/json`) and
 * answers an unsupported request Content-Type with 400 instead of 415. Both are what specification
 * v1.0.0 said (section 11.1: `application/json`; section 5.4: ContentTypeNotSupportedError is 415);
 * v1.0.1 says what the SDK does (`application/a2a+json` SHOULD be used; 400).
 *
 * Written against @a2a-js/sdk 1.3.0 (`restHandler` sets the content type on every response; its
 * `restContentTypeGuard` answers 400). Goes away when the conformance suite checks specification
 * v1.0.1 (accepts `application/a2a+json` and 400); the SDK already does.
 */
import type { NextFunction, Request, Response } from 'express';
import { ContentTypeNotSupportedError, toRestErrorBody } from '@a2a-js/sdk/errors';

const ACCEPTED_TYPES = ['application/json', 'application/a2a+json'];

export function restConformance(req: Request, res: Response, next: NextFunction): void {
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) =>
    setHeader(
      name,
      name.toLowerCase() === 'content-type' && value === 'application/a2a+json' ? 'application/json' : value,
    );

  const type = req.header('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  const hasBody = Number(req.header('content-length') ?? 0) > 0 || req.header('transfer-encoding') !== undefined;
  if (type && hasBody && !ACCEPTED_TYPES.includes(type)) {
    const error = new ContentTypeNotSupportedError(`Unsupported Content-Type "${type}"; expected application/json`);
    res.status(415).json(toRestErrorBody(error, 415));
    return;
  }
  next();
}
