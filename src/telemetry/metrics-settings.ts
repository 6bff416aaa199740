/**
 * Where the Prometheus endpoints listen: A2A_METRICS_PORT (the gateway's, served with prom-client)
 * and A2A_WORKER_METRICS_PORT (the worker's, served by the Temporal runtime), both on HOST. The
 * `gateway` and `worker` commands serve them only when set; `dev` serves both by default, on 9464
 * and 9465, or on free ports when another process holds those (its banner says where). "off" turns
 * either off. The endpoints are unauthenticated: keep them on the internal network.
 */
import { freePort, portInUse } from '../temporal/dev-server.js';
import type { Settings } from '../config/settings.js';

const DEV_METRICS_PORTS = { A2A_METRICS_PORT: 9464, A2A_WORKER_METRICS_PORT: 9465 } as const;

type MetricsPortVariable = keyof typeof DEV_METRICS_PORTS;
type MetricsSettings = Pick<Settings, MetricsPortVariable | 'HOST'>;
type Mode = 'production' | 'development';

/** The port a variable names; undefined when unset or "off". */
export function metricsPortFromEnv(env: MetricsSettings, variable: MetricsPortVariable): number | undefined {
  const port = env[variable];
  return port === false ? undefined : port;
}

/**
 * Under `dev`: the port the variable names, else the usual one when it is free, else a free one.
 * Called just before the port is bound, so that two dev stacks starting together rarely pick the same.
 */
export async function devMetricsPort(env: MetricsSettings, variable: MetricsPortVariable): Promise<number | undefined> {
  if (env[variable] !== undefined) return metricsPortFromEnv(env, variable);
  const usual = DEV_METRICS_PORTS[variable];
  return (await portInUse(usual)) ? freePort() : usual;
}

/** `host:port` of the worker's endpoint, for the Temporal runtime; undefined when off. */
export async function workerMetricsAddress(env: MetricsSettings, mode: Mode): Promise<string | undefined> {
  const variable = 'A2A_WORKER_METRICS_PORT';
  const port = mode === 'production' ? metricsPortFromEnv(env, variable) : await devMetricsPort(env, variable);
  if (port === undefined) return undefined;
  return hostPort(env.HOST ?? (mode === 'production' ? '0.0.0.0' : '127.0.0.1'), port);
}

/** `host:port`, with an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
