/**
 * Every Temporal call a client makes while a request is timed, with its latency: a gRPC interceptor
 * on the client's connection (the gateway's, the raw floor's), so calls the project makes through
 * the raw workflow service (lists, history reads) count as well as the SDK's. Requests must be timed
 * one at a time; calls a client makes on its own meanwhile (the gateway's watch of waiting tasks, a
 * long-poll's renewal) count too, as they cost the same.
 */
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { makeGrpcRetryInterceptor, defaultGrpcRetryOptions } from '@temporalio/client';
import { percentile } from './measure.js';

interface Call {
  method: string;
  ms?: number;
}

export class TemporalCalls {
  private window?: Call[];

  /** The connection's interceptors: this one, then Temporal's default retries. */
  readonly interceptors: Interceptor[] = [
    (options, nextCall) => {
      const window = this.window;
      if (!window) return new InterceptingCall(nextCall(options));
      const call: Call = { method: options.method_definition.path.split('/').pop() ?? '?' };
      window.push(call);
      const start = performance.now();
      return new InterceptingCall(nextCall(options), {
        start: (metadata, _listener, next) =>
          next(metadata, {
            onReceiveStatus: (status, nextStatus) => {
              call.ms = performance.now() - start;
              nextStatus(status);
            },
          }),
      });
    },
    makeGrpcRetryInterceptor(defaultGrpcRetryOptions()),
  ];

  /** A new recording: the calls of the requests it times, for one path's figures. */
  recording(): CallRecording {
    return new CallRecording((window) => (this.window = window));
  }
}

export class CallRecording {
  private readonly requests: Call[][] = [];

  constructor(private readonly record: (window: Call[] | undefined) => void) {}

  /** Runs one request, recording the calls made meanwhile. */
  async during<T>(request: () => Promise<T>): Promise<T> {
    const window: Call[] = [];
    this.record(window);
    try {
      return await request();
    } finally {
      this.record(undefined);
      this.requests.push(window);
    }
  }

  /** "ExecuteMultiOperation 1.00x p50 24.1 ms, ..." per request, the most frequent first. */
  describe(): string {
    const calls = this.requests.flat();
    const byMethod = new Map<string, { count: number; latencies: number[] }>();
    for (const call of calls) {
      const entry = byMethod.get(call.method) ?? { count: 0, latencies: [] };
      entry.count++;
      if (call.ms !== undefined) entry.latencies.push(call.ms);
      byMethod.set(call.method, entry);
    }
    const perRequest = (count: number) => (count / Math.max(1, this.requests.length)).toFixed(2);
    return (
      [...byMethod]
        .sort(([, a], [, b]) => b.count - a.count)
        .map(
          ([method, { count, latencies }]) =>
            `${method} ${perRequest(count)}x p50 ${percentile(latencies, 50).toFixed(1)} ms`,
        )
        .join(', ') || 'none'
    );
  }
}
