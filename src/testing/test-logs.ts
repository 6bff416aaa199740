/**
 * What a test environment logs. Tests assert outcomes that log warnings and errors on purpose — a
 * task that ends rejected or failed logs "Workflow failed", agent code that throws "Agent failed", an
 * activity that fails its attempt and its task token — so without LOG_LEVEL those go through
 * `console`, one line each without stacks or IDs no reader needs: a test runner attributes console
 * output to the test that caused it, and Vitest's `silent: 'passed-only'` (the scaffold's config)
 * shows it only for a test that fails. LOG_LEVEL shows everything at that level, as a worker logs it.
 */
import { inspect } from 'node:util';
import { DefaultLogger, Runtime, type LogEntry, type LogLevel } from '@temporalio/worker';
import type { Settings } from '../config/settings.js';
import { logger } from '../logging.js';

/** Temporal's levels by LOG_LEVEL's (pino's) names. */
const TEMPORAL_LEVELS: Record<string, LogLevel> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  fatal: 'ERROR',
};

/** Fields of the SDK's log entries that tell a test's reader nothing (the task token above all). */
const NOISE = new Set(['sdkComponent', 'taskQueue', 'namespace', 'runId', 'taskToken', 'activityId', 'isLocal']);

let logsQuieted = false;

/** Installs the test process's Temporal runtime, unless the test installed one of its own first. */
export function quietLogs(env: Pick<Settings, 'LOG_LEVEL'>): void {
  if (logsQuieted) return;
  logsQuieted = true;
  const asked = env.LOG_LEVEL && TEMPORAL_LEVELS[env.LOG_LEVEL];
  if (!asked) logger.level = 'warn';
  try {
    Runtime.install({ logger: asked ? new DefaultLogger(asked) : new DefaultLogger('WARN', toConsole) });
  } catch {
    // Already installed: keep the test's own settings.
  }
}

/** One entry as one console line: the message, the error's message, the fields that say where. */
function testLogLine({ level, message, meta }: Pick<LogEntry, 'level' | 'message' | 'meta'>): string {
  const { error, ...rest } = meta ?? {};
  const fields = Object.entries(rest)
    .filter(([name, value]) => !NOISE.has(name) && value !== undefined)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : inspect(value, { breakLength: Infinity })}`);
  const reason = error instanceof Error ? error.message : error === undefined ? '' : String(error);
  return `[${level}] ${message}${reason ? `: ${reason}` : ''}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`;
}

function toConsole(entry: LogEntry): void {
  const line = testLogLine(entry);
  if (entry.level === 'ERROR') console.error(line);
  else console.warn(line);
}
