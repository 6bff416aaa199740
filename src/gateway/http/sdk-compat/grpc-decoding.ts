/**
 * Requests the server cannot decode. The SDK's service definition (`A2AService`) decodes each request
 * with its generated protobuf reader, which throws on bytes that are no message of the method's type,
 * on Structs nested deeper than its stack and on timestamps beyond any date; grpc-js answers a
 * throwing deserializer INTERNAL, as if the server had failed. They are the client's mistake:
 * decoding yields a marker instead, and the call is answered INVALID_ARGUMENT before the SDK sees it.
 *
 * Written against @a2a-js/sdk 1.3.0 (`A2AService` from its server/grpc) and @grpc/grpc-js 1.14.
 * Goes away when the SDK's service definition (or `grpcService`) turns a decoding failure into
 * INVALID_ARGUMENT itself, and reads a ListTasks `page_size` of 0 as not given.
 */
import * as grpc from '@grpc/grpc-js';
import type { ListTasksRequest } from '@a2a-js/sdk';
import { grpcRefusal } from '../refusals.js';
import type { GrpcCall } from './request-lifetime.js';

/** Stands for a request the server could not decode; `refusingUndecodable` answers it. */
const UNDECODABLE = Symbol('undecodable request');
const UNDECODABLE_MESSAGE = 'The request is not a valid protobuf message for this method';
const LIST_TASKS_PATH = '/lf.a2a.v1.A2AService/ListTasks';

function withoutZeroPageSize(request: ListTasksRequest): ListTasksRequest {
  if (request.pageSize !== 0) return request;
  const { pageSize: _zero, ...rest } = request;
  return rest;
}

/**
 * The SDK's service definition with each request deserializer marking, not throwing on, what it cannot
 * decode, and reading a ListTasks `page_size` of 0 as not given: proto3's zero is how a client says
 * "not set" (a2a-go 2.3 always sends it), while the SDK decodes it as a page size of 0.
 */
export function decodingSafely(definition: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const safe = (method: grpc.MethodDefinition<unknown, unknown>) => ({
    ...method,
    requestDeserialize: (bytes: Buffer) => {
      let request: unknown;
      try {
        request = method.requestDeserialize(bytes);
      } catch {
        return { [UNDECODABLE]: true };
      }
      return method.path === LIST_TASKS_PATH ? withoutZeroPageSize(request as ListTasksRequest) : request;
    },
  });
  return Object.fromEntries(Object.entries(definition).map(([name, method]) => [name, safe(method)]));
}

/** The SDK's service, answering INVALID_ARGUMENT for a request `decodingSafely` marked. */
export function refusingUndecodable(service: grpc.UntypedServiceImplementation): grpc.UntypedServiceImplementation {
  const refusal = () => grpcRefusal(grpc.status.INVALID_ARGUMENT, UNDECODABLE_MESSAGE);
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
