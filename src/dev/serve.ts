/**
 * A project's worker and gateway in one process, on a Temporal server that is already running:
 * what the dev stack restarts when the project's files change.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { LoadedConfig } from '../config/load-config.js';
import type { Settings } from '../config/settings.js';
import { createProjectWorker, startProjectGateway } from '../config/project.js';
import { gatewaySettings } from '../gateway/config.js';
import { devMetricsPort } from '../telemetry/metrics-settings.js';
import { tracingPlugins } from '../telemetry/tracing.js';
import type { TemporalSettings } from '../temporal/connection.js';

export interface ServedProject {
  gatewayUrl: string;
  /** The authentication methods on, or 'none'. */
  authentication: string;
  grpcAddress?: string;
  /** The gateway's Prometheus endpoint, when served. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export async function serveProject(
  config: LoadedConfig,
  settings: TemporalSettings,
  env: Settings,
): Promise<ServedProject> {
  const nativeConnection = await NativeConnection.connect(settings.connection);
  const worker = await createProjectWorker(config, nativeConnection, settings, env);
  const workerRun = worker.run();

  const connection = await Connection.connect(settings.connection);
  const client = new Client({ connection, namespace: settings.namespace, plugins: tracingPlugins() });
  const gatewayDefaults = gatewaySettings(env, 'development', config);
  const metricsPort = await devMetricsPort(env, 'A2A_METRICS_PORT');
  const gateway = await startProjectGateway(config, client, settings, {
    ...gatewayDefaults,
    ...(metricsPort !== undefined && { metricsPort }),
  });

  let stopped: Promise<void> | undefined;
  return {
    gatewayUrl: gateway.url,
    authentication: gatewayDefaults.authenticator?.required ? gatewayDefaults.authenticator.methods.join(', ') : 'none',
    ...(gateway.grpcAddress && { grpcAddress: gateway.grpcAddress }),
    ...(gateway.metricsUrl && { metricsUrl: gateway.metricsUrl }),
    stop() {
      stopped ??= (async () => {
        await gateway.close();
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await workerRun;
        await connection.close();
        await nativeConnection.close();
      })();
      return stopped;
    },
  };
}
