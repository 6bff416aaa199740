/**
 * Gateway entrypoint. Environment: PORT (8080), GRPC_PORT (8081, "off" to disable), HOST
 * (0.0.0.0), A2A_PUBLIC_URL (http://127.0.0.1:PORT), A2A_GRPC_PUBLIC_ADDRESS (127.0.0.1:GRPC_PORT),
 * A2A_DEFAULT_AGENT (the first agent), A2A_TASK_QUEUE, and Temporal's standard TEMPORAL_ADDRESS,
 * TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*. The Temporal connection is lazy, so the
 * gateway starts (and answers "Temporal is unreachable, retry later") while Temporal is down.
 */
import { agents } from './agents/index.js';
import { gatewaySettings } from './gateway/config.js';
import { startGatewayServer } from './gateway/server.js';
import { createTemporalClient } from './gateway/temporal-client.js';
import { logger } from './logging.js';
import { temporalSettings } from './temporal/connection.js';

async function main(): Promise<void> {
  const settings = temporalSettings(process.env);
  const { client, connection } = createTemporalClient(settings.connection, settings.namespace);
  const running = await startGatewayServer({
    client,
    agents,
    taskQueue: settings.taskQueue,
    ...gatewaySettings(process.env, '0.0.0.0'),
  });
  logger.info(
    {
      url: running.url,
      grpcAddress: running.grpcAddress,
      agents: agents.map((agent) => agent.name),
      temporal: `${settings.address}/${settings.namespace}`,
    },
    'A2A gateway started',
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
  logger.error({ err: error }, 'The gateway failed to start');
  process.exit(1);
});
