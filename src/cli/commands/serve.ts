/**
 * `dev`, `worker` and `gateway`: run a project's agents. They run until SIGINT or SIGTERM, then stop
 * in order (gateway, worker, Temporal) and exit 0. A config mistake is a usage error (exit 1).
 */
import { NativeConnection } from '@temporalio/worker';
import type { Command } from '../command.js';
import { loadConfig, type LoadedConfig } from '../../config/load-config.js';
import { readSettings } from '../../config/settings.js';
import { createProjectWorker, startProjectGateway } from '../../config/project.js';
import { startDevStack } from '../../dev/dev-stack.js';
import { gatewaySettings } from '../../gateway/config.js';
import { createTemporalClient } from '../../tasks/temporal-client.js';
import { logger, routeConsoleToLogger } from '../../logging.js';
import { workerMetricsAddress } from '../../telemetry/metrics-settings.js';
import { startTracing, stopTracing } from '../../telemetry/tracing.js';
import { temporalSettings } from '../../temporal/connection.js';
import { installTemporalRuntime } from '../../temporal/runtime.js';
import { ExitCode } from '../errors.js';
import type { Io } from '../io.js';
import { checkSearchAttributes, temporalError, temporalWhere } from './setup.js';
import {
  currentBuildId,
  DEFAULT_VERSIONING,
  setCurrentVersionCommand,
  workerDeploymentFrom,
  type WorkerDeployment,
} from '../../worker/deployment.js';

type ServeCommand = Extract<Command, { kind: 'dev' | 'worker' | 'gateway' }>;

export async function runDev(command: ServeCommand, io: Io): Promise<ExitCode> {
  // Read here to refuse a wrong one at once; the serving process reads the same environment again.
  const settings = readSettings(io.env);
  // Before the dev server: without a Temporal CLI at hand the SDK runs one, on a native runtime of
  // its own otherwise, whose logs would bypass the logger. This process orders shutdown.
  installTemporalRuntime({ ownSignals: true, level: settings.TEMPORAL_LOG_LEVEL });
  const stack = await startDevStack({
    ...(command.config && { config: command.config }),
    env: io.env,
    settings,
    print: io.out,
  });
  const signal = await nextShutdownSignal();
  logger.info({ signal }, 'stopping');
  await stack.stop();
  return ExitCode.Ok;
}

export async function runWorker(command: ServeCommand, io: Io): Promise<ExitCode> {
  const environment = readSettings(io.env);
  startTracing({ serviceName: 'a2a-temporal-worker', settings: environment });
  const metricsAddress = await workerMetricsAddress(environment, 'production');
  // The SDK stops the worker on SIGINT/SIGTERM; run() then resolves.
  installTemporalRuntime({ ...(metricsAddress && { metricsAddress }), level: environment.TEMPORAL_LOG_LEVEL });
  const config = await loadConfig(command.config);
  const deployment = workerDeploymentFrom(environment, config.workerDeployment);
  const settings = temporalSettings(environment, taskQueueOf(config));
  // One line saying what to do, as `setup` says it, rather than the native client's error.
  const connection = await NativeConnection.connect(settings.connection).catch((error: unknown) => {
    throw temporalError(error, temporalWhere(settings), 'TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE)');
  });
  await checkSearchAttributes(connection, settings.namespace, (message) => logger.warn(message));
  const worker = await createProjectWorker(config, connection, settings, environment, { deployment });
  const { address, namespace, taskQueue } = settings;
  const metrics = metricsAddress && `http://${metricsAddress}/metrics`;
  const version = deployment && {
    deployment: deployment.name,
    buildId: deployment.buildId,
    versioning: deployment.defaultVersioning ?? DEFAULT_VERSIONING,
  };
  logger.info(
    { address, namespace, taskQueue, agents: config.agents.map((a) => a.name), ...version, metrics },
    'worker started',
  );
  const running = worker.run();
  if (deployment) void reportRouting(connection, namespace, deployment);
  await running;
  await connection.close();
  await stopTracing();
  return ExitCode.Ok;
}

export async function runGateway(command: ServeCommand, io: Io): Promise<ExitCode> {
  const environment = readSettings(io.env);
  routeConsoleToLogger();
  startTracing({ serviceName: 'a2a-temporal-gateway', settings: environment });
  const config = await loadConfig(command.config);
  const gateway = gatewaySettings(environment, 'production', config);
  const settings = temporalSettings(environment, taskQueueOf(config));
  // Lazy: the gateway starts (and answers "Temporal is unreachable, retry later") while Temporal is down.
  const { client, connection } = createTemporalClient(settings.connection, settings.namespace);
  const running = await startProjectGateway(config, client, settings, gateway);
  logger.info(
    {
      url: running.url,
      grpcAddress: running.grpcAddress,
      metrics: running.metricsUrl,
      agents: config.agents.map((agent) => agent.name),
      temporal: `${settings.address}/${settings.namespace}`,
      taskQueue: settings.taskQueue,
      authentication: gateway.authenticator?.required ? gateway.authenticator.methods : 'none',
    },
    'A2A gateway started',
  );
  await nextShutdownSignal();
  await running.close();
  await connection.close();
  await stopTracing();
  return ExitCode.Ok;
}

/** A versioned worker that is not its deployment's current version gets no new tasks: say so, and how. */
async function reportRouting(connection: NativeConnection, namespace: string, deployment: WorkerDeployment) {
  // Polling registers the version; give the first polls a moment.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  try {
    const current = await currentBuildId(connection, namespace, deployment.name);
    if (current === deployment.buildId) {
      logger.info({ deployment: deployment.name, buildId: current }, 'this version is current: new tasks start here');
      return;
    }
    const level = current ? 'info' : 'warn';
    logger[level](
      { deployment: deployment.name, buildId: deployment.buildId, current: current ?? null },
      `${current ? `new tasks start on version ${current}` : 'no version is current: new tasks wait for one'}; ` +
        `this one runs the tasks pinned to it. To send new tasks here: ${setCurrentVersionCommand(deployment, namespace)}`,
    );
  } catch (error) {
    logger.warn({ err: error, deployment: deployment.name }, 'could not read the worker deployment');
  }
}

function taskQueueOf(config: LoadedConfig): { taskQueue?: string } {
  return config.taskQueue ? { taskQueue: config.taskQueue } : {};
}

function nextShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}
