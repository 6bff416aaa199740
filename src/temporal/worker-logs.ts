/** Temporal's worker, workflow and activity logs, through this product's logger. */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from 'pino';
import { logger } from '../logging.js';

const TEMPORAL_LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Sends the Temporal SDK's logs (worker, workflow `log`, activities) to `log`. Call once per process.
 * `ownSignals`: the SDK stops workers on SIGINT/SIGTERM itself, unless the caller orders shutdown.
 */
export function routeTemporalLogs(options: { log?: Logger; ownSignals?: boolean } = {}): void {
  const log = options.log ?? logger;
  const level = (process.env.TEMPORAL_LOG_LEVEL ?? 'WARN').toUpperCase() as LogLevel;
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
  });
}
