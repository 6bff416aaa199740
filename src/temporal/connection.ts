/**
 * Temporal connection settings through `@temporalio/envconfig`: Temporal's standard variables
 * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_GRPC_META_*) and
 * profiles (TEMPORAL_PROFILE in TEMPORAL_CONFIG_FILE or ~/.config/temporalio/temporal.toml), plus
 * this project's A2A_TASK_QUEUE, as the settings hold them (src/config/settings/temporal.ts); envconfig
 * is handed those alone. Worker, gateway, dev stack and `setup` all connect through here.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../protocol/contract.js';
import type { Settings } from '../config/settings.js';
import { TEMPORAL_SETTINGS } from '../config/settings/temporal.js';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** For `Connection.connect` (client) and `NativeConnection.connect` (worker) alike. */
  connection: NativeConnectionOptions & { address: string };
}

const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

export function temporalSettings(env: Settings, defaults: { taskQueue?: string } = {}): TemporalSettings {
  const { connectionOptions, namespace } = loadClientConnectConfig({ overrideEnvVars: envconfigVariables(env) });
  const address = connectionOptions.address || DEFAULT_TEMPORAL_ADDRESS;
  return {
    address,
    namespace: namespace || 'default',
    taskQueue: env.A2A_TASK_QUEUE || defaults.taskQueue || DEFAULT_TASK_QUEUE,
    connection: { ...connectionOptions, address },
  };
}

/** Temporal's own variables that are set, as the text envconfig reads (it reads `undefined` as set). */
function envconfigVariables(env: Settings): Record<string, string> {
  const names = (Object.keys(TEMPORAL_SETTINGS) as (keyof typeof TEMPORAL_SETTINGS)[]).filter((name) =>
    name.startsWith('TEMPORAL_'),
  );
  const set = names.flatMap((name) => (env[name] === undefined ? [] : [[name, String(env[name])]]));
  return { ...Object.fromEntries(set), ...env.temporalGrpcMeta };
}
