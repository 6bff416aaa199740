/**
 * Structured logs: JSON lines (pino) in production, pretty when a person watches a terminal.
 * LOG_LEVEL sets the level (default info); LOG_FORMAT=json|pretty overrides the choice.
 * Worker processes send Temporal's own logs here too (src/temporal/worker-logs.ts).
 */
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
