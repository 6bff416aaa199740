/**
 * The gRPC status of a failed call, where the SDK's gRPC adapter picks one this gateway must not send:
 *
 * - it answers every error that is not an A2A error INTERNAL, with no way for the request handler
 *   to say otherwise; a call that failed because Temporal was out of reach (RequestOutcome) ends
 *   UNAVAILABLE instead, which clients and proxies retry;
 * - it answers VersionNotSupportedError FAILED_PRECONDITION, as the specification's mapping table
 *   says since v1.0.1 (section 5.4); the conformance suite (a2a-tck 1.0-dev) still checks v1.0.0's
 *   UNIMPLEMENTED on every run, so that one error keeps v1.0.0's status. UnsupportedOperationError
 *   and PushNotificationNotSupportedError, UNIMPLEMENTED in v1.0.0 too, keep the SDK's (and v1.0.1's)
 *   FAILED_PRECONDITION: the suite provokes them only on agents that lack streaming or push.
 * - it sends an error's whole message, twice (`grpc-message` and the google.rpc.Status in
 *   `grpc-status-details-bin`), so a message quoting what the request sent (a 100 kB tenant, an
 *   `a2a-version` header) makes trailers that clients refuse: Node's HTTP/2 client tears the
 *   connection down (GOAWAY COMPRESSION_ERROR on a ~170 kB header block) and grpc-js never fails the
 *   calls on it, so that call and every later one on the connection hang; gRPC C-core clients (Python,
 *   C++) refuse metadata beyond 8-16 kB by default. Every status text is cut to MAX_STATUS_TEXT_BYTES.
 *
 * Written against @a2a-js/sdk 1.3.0 (`grpcService`, `GRPC_ERROR_STATUS` in its errors/grpc).
 * Goes away when the SDK lets a handler's error carry its gRPC status (UNAVAILABLE), bounds the
 * status text it sends, and when the conformance suite checks v1.0.1's FAILED_PRECONDITION for
 * VersionNotSupportedError.
 */
import * as grpc from '@grpc/grpc-js';
import {
  decodeErrorInfo,
  decodeStatus,
  encodeGrpcStatusDetails,
  GRPC_STATUS_DETAILS_BIN,
} from '@a2a-js/sdk/errors/grpc';
import { grpcOutcomeOf, type GrpcCall } from './request-lifetime.js';

/**
 * The longest status text sent, in UTF-8 bytes: room for any message this gateway writes (three
 * 256-character IDs), and small enough trailers for every client even percent-encoded.
 */
const MAX_STATUS_TEXT_BYTES = 1024;

/** A2A reasons (google.rpc.ErrorInfo, in the status details) answered UNIMPLEMENTED instead of FAILED_PRECONDITION. */
const UNIMPLEMENTED_REASONS = ['VERSION_NOT_SUPPORTED'];

/** A failed call's status as grpc-js sends it: `details` (else `message`) becomes `grpc-message`. */
interface FailedStatus {
  code?: number;
  details?: string;
  message?: string;
  metadata?: grpc.Metadata;
}

function specStatus<E>(error: E, call: GrpcCall): E {
  const status = error as FailedStatus | null;
  if (!status) return error;
  if (grpcOutcomeOf(call)?.retryLater) status.code = grpc.status.UNAVAILABLE;
  if (status.code === grpc.status.FAILED_PRECONDITION) {
    const details = status.metadata?.get(GRPC_STATUS_DETAILS_BIN)[0];
    const text = Buffer.isBuffer(details) ? details.toString('latin1') : '';
    if (UNIMPLEMENTED_REASONS.some((reason) => text.includes(reason))) status.code = grpc.status.UNIMPLEMENTED;
  }
  boundText(status);
  return error;
}

/** Cuts the status text, and the message of its google.rpc.Status, to MAX_STATUS_TEXT_BYTES. */
function boundText(status: FailedStatus): void {
  for (const key of ['details', 'message'] as const) {
    const text = status[key];
    if (typeof text === 'string') status[key] = utf8Prefix(text, MAX_STATUS_TEXT_BYTES);
  }
  const bin = status.metadata?.get(GRPC_STATUS_DETAILS_BIN)[0];
  if (!Buffer.isBuffer(bin) || bin.length <= MAX_STATUS_TEXT_BYTES) return;
  // The SDK writes one ErrorInfo (reason, metadata) beside the message; rewritten with the cut message.
  const decoded = decodeStatus(bin);
  const info = decoded.details[0] && decodeErrorInfo(Buffer.from(decoded.details[0].value));
  const message = utf8Prefix(decoded.message, MAX_STATUS_TEXT_BYTES);
  if (info) {
    const rewritten = encodeGrpcStatusDetails(decoded.code, message, info.reason, info.metadata);
    status.metadata!.set(GRPC_STATUS_DETAILS_BIN, rewritten);
  } else {
    status.metadata!.remove(GRPC_STATUS_DETAILS_BIN);
  }
}

/** `text` when it fits in `maxBytes` of UTF-8, else its longest prefix that fits with "…" (whole code points). */
function utf8Prefix(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const ellipsis = '…';
  let budget = maxBytes - Buffer.byteLength(ellipsis);
  let end = 0;
  for (const char of text) {
    budget -= Buffer.byteLength(char);
    if (budget < 0) break;
    end += char.length;
  }
  return `${text.slice(0, end)}${ellipsis}`;
}

/** The SDK's service with each failed call's status corrected as above, unary and streaming alike. */
export function withSpecStatusCodes(service: grpc.UntypedServiceImplementation): grpc.UntypedServiceImplementation {
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const impl = method as (
      call: grpc.ServerWritableStream<unknown, unknown>,
      callback?: grpc.sendUnaryData<unknown>,
    ) => void;
    wrapped[name] = ((call: grpc.ServerWritableStream<unknown, unknown>, callback?: grpc.sendUnaryData<unknown>) => {
      if (!callback) {
        // Streaming calls fail by emitting 'error' (the SDK's wrapStreaming does).
        const emit = call.emit.bind(call);
        call.emit = (event: string | symbol, ...args: unknown[]) =>
          emit(event, ...(event === 'error' ? args.map((error) => specStatus(error, call)) : args));
        return impl(call);
      }
      return impl(call, (error, value) => callback(specStatus(error, call), value));
    }) as grpc.UntypedHandleCall;
  }
  return wrapped;
}
