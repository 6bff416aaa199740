/**
 * Every Temporal RPC a client makes, recorded by a gRPC interceptor on its connection: the method,
 * the request's bytes, and when it started and ended on a counter (an order, not a time). What a
 * request costs in Temporal is which calls it makes, and the calls about one workflow are those whose
 * request names its ID.
 */
import * as grpc from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import { inject } from 'vitest';
import { workflowIdForTask } from '../../src/protocol/contract.js';

interface Call {
  method: string;
  request?: Buffer;
  started: number;
  ended?: number;
}

const UPDATE = 'UpdateWorkflowExecution';

export class TemporalCalls {
  private readonly made: Call[] = [];
  private clock = 0;

  readonly interceptor: grpc.Interceptor = (options, nextCall) => {
    const call: Call = { method: options.method_definition.path.split('/').pop()!, started: this.clock++ };
    this.made.push(call);
    const ended = new grpc.ListenerBuilder()
      .withOnReceiveStatus((status, next) => {
        call.ended = this.clock++;
        next(status);
      })
      .build();
    const requester = new grpc.RequesterBuilder()
      .withStart((metadata, _listener, next) => next(metadata, ended))
      .withSendMessage((request: Uint8Array, next) => {
        call.request = Buffer.from(request);
        next(request);
      })
      .build();
    return new grpc.InterceptingCall(nextCall(options), requester);
  };

  /** A client on a connection of its own whose calls this records. */
  async client(options: Partial<ConnectionOptions> = {}): Promise<Client> {
    const connection = await Connection.connect({
      address: inject('temporalAddress'),
      ...options,
      interceptors: [this.interceptor, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
    });
    return new Client({ connection, namespace: 'default' });
  }

  /**
   * The calls `during` made, in order, whose request names `name` (a workflow ID, or the start of
   * one). Left out: the looks that update-watch.ts takes at a task while an Update of it has waited
   * more than a moment (a loaded machine), which are what the watch costs, not the request.
   */
  async named(name: string, during: () => Promise<unknown>): Promise<string[]> {
    const from = this.made.length;
    await during();
    const calls = this.made.slice(from);
    const updates = calls.filter(({ method }) => method === UPDATE);
    const watching = (call: Call) =>
      call.method !== UPDATE && updates.some((update) => update.started < call.started && call.started < update.ended!);
    return calls.filter((call) => call.request?.includes(name) && !watching(call)).map(({ method }) => method);
  }

  /** The calls `during` made about the workflow of task `taskId` (see `named`). */
  about(taskId: string, during: () => Promise<unknown>): Promise<string[]> {
    return this.named(workflowIdForTask(taskId), during);
  }
}
