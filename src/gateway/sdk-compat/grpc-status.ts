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
 *
 * Written against @a2a-js/sdk 1.3.0 (`grpcService`, `GRPC_ERROR_STATUS` in its errors/grpc).
 * Goes away when the SDK lets a handler's error carry its gRPC status (UNAVAILABLE), and when the
 * conformance suite checks v1.0.1's FAILED_PRECONDITION for VersionNotSupportedError.
 */
import * as grpc from '@grpc/grpc-js';
import { grpcOutcomeOf, type GrpcCall } from './request-lifetime.js';

/** A2A reasons (google.rpc.ErrorInfo, in the status details) answered UNIMPLEMENTED instead of FAILED_PRECONDITION. */
const UNIMPLEMENTED_REASONS = ['VERSION_NOT_SUPPORTED'];

function specStatus<E>(error: E, call: GrpcCall): E {
  const status = error as { code?: number; metadata?: grpc.Metadata } | null;
  if (!status) return error;
  if (grpcOutcomeOf(call)?.temporalUnavailable) status.code = grpc.status.UNAVAILABLE;
  if (status.code !== grpc.status.FAILED_PRECONDITION) return error;
  const details = status.metadata?.get('grpc-status-details-bin')[0];
  const text = Buffer.isBuffer(details) ? details.toString('latin1') : '';
  if (UNIMPLEMENTED_REASONS.some((reason) => text.includes(reason))) status.code = grpc.status.UNIMPLEMENTED;
  return error;
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
