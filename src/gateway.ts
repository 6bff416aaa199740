/**
 * Gateway entrypoint. Environment: PORT (8080), GRPC_PORT (8081, "off" to disable), HOST
 * (0.0.0.0), A2A_PUBLIC_URL (http://127.0.0.1:PORT), A2A_GRPC_PUBLIC_ADDRESS (127.0.0.1:GRPC_PORT),
 * A2A_DEFAULT_AGENT (the first agent), A2A_TASK_QUEUE, and Temporal's standard TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*. The Temporal connection is lazy, so the
 * gateway starts (and answers "Temporal is unreachable, retry later") while Temporal is down.
 */
import { agents } from './agents/index.js';
import { startGatewayServer } from './gateway/server.js';
import { createTemporalClient } from './gateway/temporal-client.js';
import { temporalSettings } from './temporal/connection.js';

async function main(): Promise<void> {
  const env = process.env;
  const port = Number(env.PORT ?? 8080);
  const grpcPort = env.GRPC_PORT === 'off' ? false : Number(env.GRPC_PORT ?? 8081);
  const settings = temporalSettings(env);
  const { client, connection } = createTemporalClient(settings.connection, settings.namespace);
  const running = await startGatewayServer({
    client,
    agents,
    host: env.HOST ?? '0.0.0.0',
    port,
    grpcPort,
    publicBaseUrl: env.A2A_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    ...(grpcPort !== false && { grpcPublicAddress: env.A2A_GRPC_PUBLIC_ADDRESS ?? `127.0.0.1:${grpcPort}` }),
    ...(env.A2A_DEFAULT_AGENT && { defaultAgent: env.A2A_DEFAULT_AGENT }),
    taskQueue: settings.taskQueue,
  });
  console.log(
    `A2A gateway on ${running.url} (agents: ${agents.map((a) => `/agents/${a.name}`).join(', ')})` +
      `${running.grpcAddress ? `, gRPC on ${running.grpcAddress}` : ''}; Temporal at ${settings.address}/${settings.namespace}`,
  );
  const stop = async () => {
    await running.close();
    await connection.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error('The gateway failed to start:', error);
  process.exit(1);
});
