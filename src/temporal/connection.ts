/**
 * Temporal connection settings through `@temporalio/envconfig`: Temporal's standard variables
 * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_GRPC_META_*) and
 * profiles (TEMPORAL_PROFILE in TEMPORAL_CONFIG_FILE or ~/.config/temporalio/temporal.toml), plus
 * this project's A2A_TASK_QUEUE. Worker, gateway, dev stack and `setup` all connect through here.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../protocol/contract.js';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** For `Connection.connect` (client) and `NativeConnection.connect` (worker) alike. */
  connection: NativeConnectionOptions & { address: string };
}

const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

export function temporalSettings(
  env: NodeJS.ProcessEnv = process.env,
  defaults: { taskQueue?: string } = {},
): TemporalSettings {
  const { connectionOptions, namespace } = loadClientConnectConfig({ overrideEnvVars: definedOnly(env) });
  const address = connectionOptions.address || DEFAULT_TEMPORAL_ADDRESS;
  return {
    address,
    namespace: namespace || 'default',
    taskQueue: env.A2A_TASK_QUEUE || defaults.taskQueue || DEFAULT_TASK_QUEUE,
    connection: { ...connectionOptions, address },
  };
}

/** envconfig reads `undefined` as set; an empty variable counts as unset, as before. */
function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => Boolean(entry[1])));
}
