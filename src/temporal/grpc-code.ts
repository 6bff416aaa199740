/**
 * The gRPC status code behind what a Temporal client call threw: the client throws gRPC failures
 * bare, or wrapped in a ServiceError (with the gRPC failure as its cause). Read by the gateway (to
 * tell an unknown or unreachable task from a fault) and by `setup` (to say what to do next).
 */
import { isGrpcServiceError, ServiceError } from '@temporalio/client';

/** The code (values of @grpc/grpc-js's `status`); undefined when the error is no gRPC failure. */
export function grpcCode(error: unknown): number | undefined {
  return grpcFailure(error)?.code;
}

/** The server's google.rpc.Status of the failure (`grpc-status-details-bin`), still encoded; undefined without one. */
export function grpcStatusDetails(error: unknown): Buffer | undefined {
  const details = grpcFailure(error)?.metadata?.get('grpc-status-details-bin')[0];
  return Buffer.isBuffer(details) ? details : undefined;
}

function grpcFailure(error: unknown) {
  if (isGrpcServiceError(error)) return error;
  if (error instanceof ServiceError && isGrpcServiceError(error.cause)) return error.cause;
  return undefined;
}
