/**
 * The gRPC binding (service lf.a2a.v1.A2AService), on its own port, serving the default agent.
 */
import * as grpc from '@grpc/grpc-js';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Authenticator } from '../auth/authenticator.js';
import type { RateLimit } from '../auth/rate-limit.js';
import { limitNewTasksGrpc } from './task-rate-limit.js';
import { authenticateGrpc, grpcPrincipalOf, grpcUserBuilder } from './request-context.js';
import {
  BODY_LIMIT,
  decodingSafely,
  refusingUndecodable,
  withSpecStatusCodes,
  type GrpcCall,
} from './sdk-compat/index.js';

export interface RunningGrpcServer {
  port: number;
  stop(): Promise<void>;
}

/** Binds `host:port` (port 0 picks a free one) without TLS; put TLS in front when exposed. */
export async function startGrpcServer(
  handler: A2ARequestHandler,
  host: string,
  port: number,
  authenticator: Authenticator,
  newTaskLimit: RateLimit | undefined,
): Promise<RunningGrpcServer> {
  // The same request size limit as the HTTP transports.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': BODY_LIMIT });
  const service = grpcService({ requestHandler: handler, userBuilder: grpcUserBuilder(authenticator) });
  server.addService(
    decodingSafely(A2AService),
    withSpecStatusCodes(authenticated(refusingUndecodable(service), authenticator, newTaskLimit)),
  );
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, actual) =>
      error ? reject(error) : resolve(actual),
    ),
  );
  return {
    port: bound,
    stop: () =>
      new Promise<void>((resolve) => {
        // Open streams (a subscription may wait for days) would hold a graceful shutdown forever.
        const force = setTimeout(() => server.forceShutdown(), 2_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

/** Every call authenticates first (the same authenticator as HTTP); a failure ends it UNAUTHENTICATED. */
function authenticated(
  service: grpc.UntypedServiceImplementation,
  authenticator: Authenticator,
  newTaskLimit: RateLimit | undefined,
): grpc.UntypedServiceImplementation {
  if (!authenticator.required) return service;
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const impl = method as (call: GrpcCall, callback?: grpc.sendUnaryData<unknown>) => void;
    wrapped[name] = ((call: GrpcCall, callback?: grpc.sendUnaryData<unknown>) => {
      void authenticateGrpc(authenticator, call).then((refused) => {
        const failure =
          refused ??
          limitNewTasksGrpc(newTaskLimit, grpcPrincipalOf(call), name, (call as { request?: unknown }).request);
        if (!failure) return impl(call, callback);
        if (callback) return callback(failure);
        (call as grpc.ServerWritableStream<unknown, unknown>).emit('error', failure);
      });
    }) as grpc.UntypedHandleCall;
  }
  return wrapped;
}
