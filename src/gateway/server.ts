/**
 * Runs the gateway: the HTTP app, the gRPC server and, when asked, the Prometheus endpoint. It builds
 * the gateway first and then binds, HTTP last, so that a failed build leaves no listener and no request
 * finds the gateway half started. Ports may be 0 (tests): a free port is picked before the build, as
 * the agent cards name the addresses.
 */
import { createServer, type Server } from 'node:http';
import { buildGateway, NO_AUTHENTICATION, type GatewayOptions, type GatewayParts } from './app.js';
import type { RunningGrpcServer } from './http/grpc-server.js';
import { isLoopbackAddress, LOOPBACK_HOSTS } from './http/host-check.js';
import { GatewayMetrics } from './monitoring/metrics.js';
import { serveMetrics, type RunningMetricsServer } from './monitoring/metrics-server.js';
import { freePort } from '../temporal/dev-server.js';

/** What {@link startGateway} serves and where: the app's options, and the addresses to listen on. */
export interface GatewayServerOptions extends Omit<GatewayOptions, 'publicBaseUrl' | 'grpcPublicAddress' | 'metrics'> {
  /** The address to listen on. Default '127.0.0.1'. */
  host?: string;
  /** The HTTP port. Default 8080; 0 picks a free one. */
  port?: number;
  /** false: no gRPC server. */
  grpcPort?: number | false;
  /** Defaults to http://<host>:<bound port>. */
  publicBaseUrl?: string;
  /** Defaults to <host>:<bound gRPC port>. */
  grpcPublicAddress?: string;
  /** Default: loopback host names when `host` is a loopback address, else any host. */
  allowedHosts?: readonly string[];
  /** Port of the Prometheus endpoint (`/metrics`, on `host`; 0 picks a free one); no metrics when omitted. */
  metricsPort?: number;
}

/** A gateway {@link startGateway} started: where it answers, and how to stop it. */
export interface RunningGateway {
  /** Its base URL: agents are at `<url>/agents/<name>`. */
  url: string;
  /** `host:port` of its gRPC server, when it serves one. */
  grpcAddress?: string;
  /** The Prometheus endpoint, when served. */
  metricsUrl?: string;
  /** Stops listening, ends open streams and closes what the gateway holds. */
  close(): Promise<void>;
}

/** A running gateway with its parts (the tests read its handlers and health); not public. */
export interface ServedGateway extends RunningGateway {
  gateway: GatewayParts;
}

/**
 * Starts the gateway: HTTP (JSON-RPC, HTTP+JSON, cards, inbox, health) and gRPC, and the metrics
 * endpoint when `metricsPort` is given.
 *
 * @example
 * import { Client, Connection } from '@temporalio/client';
 * import { startGateway } from 'a2a-temporal/gateway';
 * import agents from './agents.js';
 *
 * const client = new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
 * const gateway = await startGateway({ client, agents, port: 8080, grpcPort: 8081 });
 * console.log(`agents at ${gateway.url}/agents`);
 * process.on('SIGTERM', () => void gateway.close());
 */
export function startGateway(options: GatewayServerOptions): Promise<RunningGateway> {
  return serveGateway(options);
}

export async function serveGateway(options: GatewayServerOptions): Promise<ServedGateway> {
  const host = options.host ?? '127.0.0.1';
  // The cards name the ports, so a port 0 becomes a free one before the build; nothing listens until
  // the gateway is built, so a build that throws leaves nothing behind.
  const port = await portToBind(options.port);
  const grpcPort = options.grpcPort === false ? false : await portToBind(options.grpcPort);
  const url = options.publicBaseUrl ?? `http://${host}:${port}`;
  const grpcAddress = grpcPort === false ? undefined : (options.grpcPublicAddress ?? `${host}:${grpcPort}`);
  const allowedHosts = options.allowedHosts ?? (isLoopbackAddress(host) ? LOOPBACK_HOSTS : undefined);
  const metrics =
    options.metricsPort === undefined ? undefined : { port: options.metricsPort, measured: new GatewayMetrics() };
  const gateway = buildGateway({
    ...options,
    publicBaseUrl: url,
    ...(grpcAddress && { grpcPublicAddress: grpcAddress }),
    ...(allowedHosts && { allowedHosts }),
    ...(metrics && { metrics: metrics.measured }),
  });
  const http = createServer(gateway.app);
  let grpc: RunningGrpcServer | undefined;
  let metricsServer: RunningMetricsServer | undefined;
  const close = async (): Promise<void> => {
    gateway.changes.close();
    await grpc?.stop();
    if (http.listening) await closeHttp(http);
    await metricsServer?.close();
  };
  try {
    // Metrics first: under dev its port was found free a moment ago (src/telemetry/metrics-settings.ts).
    if (metrics) metricsServer = await serveMetrics(metrics.measured.registry, host, metrics.port);
    if (grpcPort !== false) {
      // Loaded only when served: the SDK's gRPC adapter needs the optional @bufbuild/protobuf peer.
      const { startGrpcServer } = await import('./http/grpc-server.js');
      const authenticator = options.authenticator ?? NO_AUTHENTICATION;
      grpc = await startGrpcServer(gateway.grpcHandler, host, grpcPort, authenticator, gateway.newTaskLimit);
    }
    // Last: the first connection HTTP accepts finds everything served (cards, A2A, the gRPC they name).
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => resolve());
    });
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    ...(grpcAddress && { grpcAddress }),
    ...(metricsServer && { metricsUrl: metricsServer.url }),
    gateway,
    close,
  };
}

/** The port asked for; for 0 (or none), a free one, picked the way the dev stack picks its ports. */
async function portToBind(port: number | undefined): Promise<number> {
  return port || freePort();
}

function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Open SSE streams would keep close() waiting; their handlers stop when their sockets do.
    server.closeAllConnections();
  });
}
