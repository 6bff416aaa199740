/**
 * The dev stack's child process: loads the project's config and serves its worker and gateway
 * until told to stop. The dev stack starts a fresh one whenever the project's files change, so the
 * project's modules are always imported anew. Tells its parent when it is ready (IPC).
 */
import { loadConfig } from '../config/load-config.js';
import { readSettings } from '../config/settings.js';
import { missingModelSetting, modelSettingsFromEnv } from '../llm/model-settings.js';
import { logger, routeConsoleToLogger } from '../logging.js';
import { workerMetricsAddress } from '../telemetry/metrics-settings.js';
import { startTracing, stopTracing, tracesDestination } from '../telemetry/tracing.js';
import { temporalSettings } from '../temporal/connection.js';
import { installTemporalRuntime } from '../temporal/runtime.js';
import { serveProject } from './serve.js';

export interface ServeReady {
  kind: 'ready';
  gatewayUrl: string;
  grpcAddress?: string;
  temporalAddress: string;
  /** Where the worker polls, and the agents module it bundled: what a replay of its tasks needs. */
  namespace: string;
  taskQueue: string;
  agentsModule: string;
  authentication: string;
  agents: { name: string; example?: string }[];
  defaultAgent: string;
  /** LLM agents that cannot run on this worker's model settings, and why. */
  modelMissing?: { agents: string[]; reason: string };
  /** The Prometheus endpoints served. */
  metrics: { gateway?: string; worker?: string };
  /** Where spans go; undefined while tracing is off. */
  traces?: string;
}

routeConsoleToLogger();
try {
  // The environment the dev stack gave this process, read once.
  const environment = readSettings(process.env);
  // Before any Temporal client or worker: they take their tracing plugins when built.
  const tracing = startTracing({ serviceName: 'a2a-temporal', settings: environment });
  const workerMetrics = await workerMetricsAddress(environment, 'development');
  // The parent orders shutdown: gateway first, then the worker.
  installTemporalRuntime({
    ownSignals: true,
    level: environment.TEMPORAL_LOG_LEVEL,
    ...(workerMetrics && { metricsAddress: workerMetrics }),
  });
  const config = await loadConfig(process.argv[2]);
  const settings = temporalSettings(environment, { ...(config.taskQueue && { taskQueue: config.taskQueue }) });
  const served = await serveProject(config, settings, environment);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await served.stop();
    await stopTracing();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  const ready: ServeReady = {
    kind: 'ready',
    gatewayUrl: served.gatewayUrl,
    authentication: served.authentication,
    ...(served.grpcAddress && { grpcAddress: served.grpcAddress }),
    temporalAddress: settings.address,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    agentsModule: config.agentsModule,
    agents: config.agents.map((agent) => ({
      name: agent.name,
      ...(agent.skills[0]?.examples?.[0] && { example: agent.skills[0].examples[0] }),
    })),
    defaultAgent: environment.A2A_DEFAULT_AGENT ?? config.defaultAgent ?? config.agents[0]!.name,
    metrics: {
      ...(served.metricsUrl && { gateway: served.metricsUrl }),
      ...(workerMetrics && { worker: `http://${workerMetrics}/metrics` }),
    },
    ...(tracing && { traces: tracesDestination(environment) }),
  };
  const modelSettings = { ...modelSettingsFromEnv(environment), providers: await config.loadModelProviders() };
  const unable = config.agents.filter((agent) => agent.llm && missingModelSetting(modelSettings, agent.llm.model));
  if (unable.length > 0) {
    ready.modelMissing = {
      agents: unable.map((agent) => agent.name),
      reason: missingModelSetting(modelSettings, unable[0]!.llm!.model)!,
    };
  }
  process.send?.(ready);
} catch (error) {
  logger.error({ err: error }, (error as Error).message);
  process.exit(1);
}
