/**
 * Runs the gateway: the HTTP app, the gRPC server and, when asked, the Prometheus endpoint. Ports may
 * be 0 (tests): the agent cards name the addresses actually bound, so both A2A listeners start before
 * the cards are built.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { buildGateway, NO_AUTHENTICATION, taskQueueOf, type GatewayOptions, type GatewayParts } from './app.js';
import type { RunningGrpcServer } from './http/grpc-server.js';
import { isLoopbackAddress, LOOPBACK_HOSTS } from './http/host-check.js';
import { restErrorBody } from './http/refusals.js';
import { GatewayMetrics } from './monitoring/metrics.js';
import { serveMetrics, type RunningMetricsServer } from './monitoring/metrics-server.js';
import { WaitingApprovals } from './monitoring/waiting-approvals.js';

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
  let metrics: { measured: GatewayMetrics; server: RunningMetricsServer } | undefined;
  // First: under dev its port was found free a moment ago (src/telemetry/metrics-settings.ts).
  if (options.metricsPort !== undefined) {
    const agents = options.agents.map((agent) => agent.name);
    const approvals = new WaitingApprovals(options.client, agents, taskQueueOf(options));
    const measured = new GatewayMetrics(approvals);
    metrics = { measured, server: await serveMetrics(measured.registry, host, options.metricsPort) };
  }
  // Filled once the cards can name the bound ports; the gRPC service reaches it through this.
  const ready: { gateway?: GatewayParts } = {};
  // Answers from the first accepted connection: "starting" until the app exists (load balancers retry).
  const http = createServer((req, res) => (ready.gateway ? ready.gateway.app(req, res) : answerStarting(req, res)));
  let grpc: RunningGrpcServer | undefined;
  // Listeners bind before the build (the cards name the bound ports), so a build that throws must close them.
  const closeListeners = async (): Promise<void> => {
    await grpc?.stop();
    if (http.listening) await closeHttp(http);
    await metrics?.server.close();
  };
  let url: string;
  let grpcAddress: string | undefined;
  let gateway: GatewayParts;
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 0, host, () => resolve());
    });
    if (options.grpcPort !== false) {
      // Loaded only when served: the SDK's gRPC adapter needs the optional @bufbuild/protobuf peer.
      const { startGrpcServer } = await import('./http/grpc-server.js');
      grpc = await startGrpcServer(
        deferred(() => ready.gateway?.grpcHandler),
        host,
        options.grpcPort ?? 0,
        options.authenticator ?? NO_AUTHENTICATION,
        () => ready.gateway?.newTaskLimit,
      );
    }
    url = options.publicBaseUrl ?? `http://${host}:${(http.address() as AddressInfo).port}`;
    grpcAddress = grpc ? (options.grpcPublicAddress ?? `${host}:${grpc.port}`) : undefined;
    const allowedHosts = options.allowedHosts ?? (isLoopbackAddress(host) ? LOOPBACK_HOSTS : undefined);
    gateway = buildGateway({
      ...options,
      publicBaseUrl: url,
      ...(grpcAddress && { grpcPublicAddress: grpcAddress }),
      ...(allowedHosts && { allowedHosts }),
      ...(metrics && { metrics: metrics.measured }),
    });
  } catch (error) {
    await closeListeners();
    throw error;
  }
  ready.gateway = gateway;
  return {
    url,
    ...(grpcAddress && { grpcAddress }),
    ...(metrics && { metricsUrl: metrics.server.url }),
    gateway,
    async close() {
      gateway.waitingTasks.close();
      await closeListeners();
    },
  };
}

/** The gRPC service is registered before the handler exists; calls reach it once it does. */
function deferred(get: () => A2ARequestHandler | undefined): A2ARequestHandler {
  return new Proxy({} as A2ARequestHandler, {
    get(_target, property) {
      const handler = get();
      if (!handler) throw new Error('The gateway is still starting');
      const value: unknown = Reflect.get(handler, property);
      return typeof value === 'function' ? value.bind(handler) : value;
    },
  });
}

function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  // Alive, not ready: liveness probes must not restart a gateway that is only starting.
  const alive = req.url === '/healthz';
  res.writeHead(alive ? 200 : 503, { 'content-type': 'application/json', ...(!alive && { 'retry-after': '1' }) });
  res.end(
    JSON.stringify(
      alive ? { status: 'ok' } : restErrorBody(503, 'UNAVAILABLE', 'The gateway is starting; retry in a moment'),
    ),
  );
}

function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Open SSE streams would keep close() waiting; their handlers stop when their sockets do.
    server.closeAllConnections();
  });
}
