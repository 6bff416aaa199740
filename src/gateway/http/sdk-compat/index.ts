/**
 * Every place the gateway corrects what @a2a-js/sdk's transport adapters do, in one folder. Each file
 * says the SDK version it was written against (the one package.json pins) and what upstream would
 * have to change for it to go away: on an SDK upgrade, read these first, and delete what the new
 * version makes unneeded. The rest of the gateway imports them from here only.
 */
export { BODY_LIMIT, jsonRpcBody, restBody } from './body-parsing.js';
export { proto3JsonCard } from './card-serialization.js';
export { decodingSafely, refusingUndecodable } from './grpc-decoding.js';
export { withSpecStatusCodes } from './grpc-status.js';
export { validateJsonRpc } from './jsonrpc-validation.js';
export {
  callLifetime,
  lifetimeOf,
  requestLifetime,
  RETRY_AFTER_SECONDS,
  SSE_KEEPALIVE_MS,
  type GrpcCall,
  type RequestOutcome,
} from './request-lifetime.js';
export { restConformance } from './rest-conformance.js';
export { restSuccessStatus } from './rest-success-status.js';
export { validateRest } from './rest-validation.js';
