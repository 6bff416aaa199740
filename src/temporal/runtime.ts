/**
 * The process's Temporal runtime, installed once (Temporal allows no second) and before any native
 * connection (the first one would install a default runtime): the SDK's worker, workflow and
 * activity logs and its core's (Rust) logs through this product's logger and, when asked, the
 * runtime's own metrics on a Prometheus endpoint: workers, workflow tasks, activities, and the task
 * counters of src/workflows/metrics-interceptors.ts.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Settings } from '../config/settings.js';
import { logger } from '../logging.js';
import { APPROVAL_BUCKETS_SECONDS, APPROVAL_METRICS } from '../protocol/telemetry.js';

const TEMPORAL_LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

export interface TemporalRuntimeOptions {
  log?: Logger;
  /** The SDK stops workers on SIGINT/SIGTERM itself, unless the caller orders shutdown. */
  ownSignals?: boolean;
  /** `host:port` of the Prometheus endpoint (`/metrics`); no metrics when omitted. */
  metricsAddress?: string;
  /** The lowest level of the SDK's own logs (TEMPORAL_LOG_LEVEL); default warn. */
  level?: Settings['TEMPORAL_LOG_LEVEL'];
}

export function installTemporalRuntime(options: TemporalRuntimeOptions = {}): void {
  const log = options.log ?? logger;
  const level = (options.level ?? 'warn').toUpperCase() as LogLevel;
  Runtime.install({
    ...(options.ownSignals && { shutdownSignals: [] }),
    logger: new DefaultLogger(level, ({ level: entryLevel, message, meta }) => {
      // Workflow and activity code log errors as `error`; pino serializes an error only as `err`.
      const { error, ...rest } = meta ?? {};
      log[TEMPORAL_LEVELS[entryLevel]](
        { ...rest, ...(error !== undefined && { err: error }), component: 'temporal' },
        message,
      );
    }),
    telemetryOptions: {
      // Core prints its own logs (client retries among them) to the console, coloured, unless they
      // are forwarded: forwarded, they are entries of the logger above, JSON with LOG_FORMAT=json.
      logging: { forward: {} },
      ...(options.metricsAddress && {
        metrics: {
          // Prometheus' own conventions: counters end in _total, durations in seconds with the unit in the name.
          prometheus: {
            bindAddress: options.metricsAddress,
            countersTotalSuffix: true,
            useSecondsForDurations: true,
            unitSuffix: true,
            // Approvals take minutes to days, not the milliseconds of the default buckets.
            histogramBucketOverrides: { [APPROVAL_METRICS.decision]: APPROVAL_BUCKETS_SECONDS },
          },
        },
      }),
    },
  });
}
