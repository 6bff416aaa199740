/**
 * The gRPC binding (service lf.a2a.v1.A2AService), on its own port, serving the default agent.
 */
import * as grpc from '@grpc/grpc-js';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { Authenticator } from './auth/authenticator.js';
import { BODY_LIMIT } from './body-parsing.js';
import { limitNewTasksGrpc, type NewTaskRateLimit } from './auth/task-rate-limit.js';
import { authenticateGrpc, grpcOutcomeOf, grpcPrincipalOf, grpcUserBuilder } from './request-context.js';

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
  newTaskLimit: () => NewTaskRateLimit | undefined,
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

/**
 * The SDK (1.3.0) sends FAILED_PRECONDITION for these A2A errors; the spec's mapping (and the
 * conformance suite) wants UNIMPLEMENTED. The A2A reason travels in the status details.
 */
const UNIMPLEMENTED_REASONS = ['PUSH_NOTIFICATION_NOT_SUPPORTED', 'UNSUPPORTED_OPERATION', 'VERSION_NOT_SUPPORTED'];

function specStatus<E>(error: E, call: GrpcCall): E {
  const status = error as { code?: number; metadata?: grpc.Metadata } | null;
  if (!status) return error;
  // The SDK answers every non-A2A error INTERNAL; an unreachable Temporal is worth a retry.
  if (grpcOutcomeOf(call)?.temporalUnavailable) status.code = grpc.status.UNAVAILABLE;
  if (status.code !== grpc.status.FAILED_PRECONDITION) return error;
  const details = status.metadata?.get('grpc-status-details-bin')[0];
  const text = Buffer.isBuffer(details) ? details.toString('latin1') : '';
  if (UNIMPLEMENTED_REASONS.some((reason) => text.includes(reason))) status.code = grpc.status.UNIMPLEMENTED;
  return error;
}

/** Every call authenticates first (the same authenticator as HTTP); a failure ends it UNAUTHENTICATED. */
function authenticated(
  service: grpc.UntypedServiceImplementation,
  authenticator: Authenticator,
  newTaskLimit: () => NewTaskRateLimit | undefined,
): grpc.UntypedServiceImplementation {
  if (!authenticator.required) return service;
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const impl = method as (call: GrpcCall, callback?: grpc.sendUnaryData<unknown>) => void;
    wrapped[name] = ((call: GrpcCall, callback?: grpc.sendUnaryData<unknown>) => {
      void authenticateGrpc(authenticator, call).then((refused) => {
        const failure =
          refused ??
          limitNewTasksGrpc(newTaskLimit(), grpcPrincipalOf(call), name, (call as { request?: unknown }).request);
        if (!failure) return impl(call, callback);
        if (callback) return callback(failure);
        (call as grpc.ServerWritableStream<unknown, unknown>).emit('error', failure);
      });
    }) as grpc.UntypedHandleCall;
  }
  return wrapped;
}

type GrpcCall = grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>;

function withSpecStatusCodes(service: grpc.UntypedServiceImplementation): grpc.UntypedServiceImplementation {
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const impl = method as (
      call: grpc.ServerWritableStream<unknown, unknown>,
      callback?: grpc.sendUnaryData<unknown>,
    ) => void;
    wrapped[name] = ((call: grpc.ServerWritableStream<unknown, unknown>, callback?: grpc.sendUnaryData<unknown>) => {
      if (!callback) {
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

/** Stands for a request the server could not decode; `refusingUndecodable` answers it. */
const UNDECODABLE = Symbol('undecodable request');
const UNDECODABLE_MESSAGE = 'The request is not a valid protobuf message for this method';

/**
 * grpc-js answers INTERNAL when a request deserializer throws, as if the server had failed. Bytes that
 * are no protobuf message, Structs nested deeper than the decoder's stack, timestamps beyond any date
 * are the client's mistake: decoding them yields a marker instead, answered INVALID_ARGUMENT.
 */
function decodingSafely(definition: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const safe = (method: grpc.MethodDefinition<unknown, unknown>) => ({
    ...method,
    requestDeserialize: (bytes: Buffer) => {
      try {
        return method.requestDeserialize(bytes);
      } catch {
        return { [UNDECODABLE]: true };
      }
    },
  });
  return Object.fromEntries(Object.entries(definition).map(([name, method]) => [name, safe(method)]));
}

function refusingUndecodable(service: grpc.UntypedServiceImplementation): grpc.UntypedServiceImplementation {
  const refusal = () =>
    Object.assign(new Error(UNDECODABLE_MESSAGE), {
      code: grpc.status.INVALID_ARGUMENT,
      details: UNDECODABLE_MESSAGE,
      metadata: new grpc.Metadata(),
    });
  const wrapped: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const impl = method as (call: GrpcCall, callback?: grpc.sendUnaryData<unknown>) => void;
    wrapped[name] = ((call: GrpcCall, callback?: grpc.sendUnaryData<unknown>) => {
      const request = (call as { request?: unknown }).request;
      if (typeof request !== 'object' || request === null || !(UNDECODABLE in request)) return impl(call, callback);
      if (callback) return callback(refusal());
      (call as grpc.ServerWritableStream<unknown, unknown>).emit('error', refusal());
    }) as grpc.UntypedHandleCall;
  }
  return wrapped;
}
