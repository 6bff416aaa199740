/**
 * The gateway's Temporal client. The connection is lazy, so the gateway starts while Temporal is
 * down; and gRPC retries are short, so a request answers "Temporal is unreachable, retry later"
 * within seconds instead of holding the caller for the SDK default's (about 20 s of) retries. While
 * tracing is on, its calls carry the request's trace into the workflows.
 */
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import { tracingPlugins } from '../telemetry/tracing.js';

const GATEWAY_GRPC_RETRY = { maxAttempts: 3, initialIntervalMs: () => 100, maxIntervalMs: () => 1_000 };

export function createTemporalClient(
  connection: ConnectionOptions,
  namespace: string,
): { client: Client; connection: Connection } {
  const lazy = Connection.lazy({
    connectTimeout: '3s',
    ...connection,
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions(GATEWAY_GRPC_RETRY))],
  });
  return { client: new Client({ connection: lazy, namespace, plugins: tracingPlugins() }), connection: lazy };
}
