/**
 * Temporal connection settings from Temporal's standard environment variables, as
 * `@temporalio/envconfig` names them: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
 * TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH / TEMPORAL_TLS_SERVER_CA_CERT_PATH.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '@temporalio/client';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  connection: { address: string; apiKey?: string; tls?: ConnectionOptions['tls'] };
}

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';

export function temporalSettings(env: NodeJS.ProcessEnv = process.env): TemporalSettings {
  const address = env.TEMPORAL_ADDRESS || DEFAULT_TEMPORAL_ADDRESS;
  const apiKey = env.TEMPORAL_API_KEY || undefined;
  const certPath = env.TEMPORAL_TLS_CLIENT_CERT_PATH;
  const keyPath = env.TEMPORAL_TLS_CLIENT_KEY_PATH;
  const caPath = env.TEMPORAL_TLS_SERVER_CA_CERT_PATH;
  const tlsWanted =
    env.TEMPORAL_TLS === 'true' || apiKey !== undefined || certPath !== undefined || caPath !== undefined;
  const tls = tlsWanted
    ? {
        ...(caPath && { serverRootCACertificate: readFileSync(caPath) }),
        ...(certPath && keyPath && { clientCertPair: { crt: readFileSync(certPath), key: readFileSync(keyPath) } }),
        ...(env.TEMPORAL_TLS_SERVER_NAME && { serverNameOverride: env.TEMPORAL_TLS_SERVER_NAME }),
      }
    : undefined;
  return {
    address,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.A2A_TASK_QUEUE || 'a2a-temporal',
    connection: { address, ...(tls && { tls }), ...(apiKey && { apiKey }) },
  };
}
