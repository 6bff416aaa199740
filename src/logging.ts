/**
 * Structured logs: JSON lines (pino) in production, pretty when a person watches a terminal.
 * LOG_LEVEL sets the level (default info); LOG_FORMAT=json|pretty overrides the choice.
 * Temporal's worker logs go through the same logger.
 */
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { pino, type Logger } from 'pino';

function pretty(env: NodeJS.ProcessEnv): boolean {
  if (env.LOG_FORMAT) return env.LOG_FORMAT === 'pretty';
  return process.stdout.isTTY === true;
}

export function createLogger(env: NodeJS.ProcessEnv = process.env): Logger {
  return pino({
    level: env.LOG_LEVEL ?? 'info',
    base: { service: 'a2a-temporal' },
    ...(pretty(env) && {
      transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname,service' } },
    }),
  });
}

export const logger = createLogger();

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
      log[TEMPORAL_LEVELS[entryLevel]]({ ...meta, component: 'temporal' }, message);
    }),
  });
}
