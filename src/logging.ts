/**
 * Structured logs: JSON lines (pino) in production, pretty when a person watches a terminal.
 * LOG_LEVEL sets the level (default info); LOG_FORMAT=json|pretty overrides the choice.
 * Worker processes send Temporal's own logs here too (src/temporal/runtime.ts). A line logged
 * while a trace span is active carries its `trace_id` and `span_id` (see src/telemetry/tracing.ts).
 */
import { format } from 'node:util';
import { trace } from '@opentelemetry/api';
import { A2AError } from '@a2a-js/sdk/errors';
import { pino, type DestinationStream, type Logger } from 'pino';
import { givenValue, SETTINGS, type Settings } from './config/settings.js';

type LogSettings = Pick<Settings, 'LOG_LEVEL' | 'LOG_FORMAT'>;

function pretty(settings: LogSettings): boolean {
  if (settings.LOG_FORMAT) return settings.LOG_FORMAT === 'pretty';
  return process.stdout.isTTY === true;
}

/**
 * The active span's IDs. With tracing off the API is a no-op: there is never an active span.
 * A fresh object every time: pino merges each line's fields into what the mixin returns, so a
 * shared object would carry every field ever logged into every later line.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** `destination` is for tests; by default lines go to stdout. */
export function createLogger(settings: LogSettings, destination?: DestinationStream): Logger {
  const options = {
    level: settings.LOG_LEVEL ?? 'info',
    base: { service: 'a2a-temporal' },
    mixin: traceFields,
    ...(pretty(settings) && {
      transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname,service' } },
    }),
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The process's logger exists before any entrypoint runs (modules take children of it as they load),
 * so it reads its two variables itself, as declared; a wrong one is left at its default here, and the
 * entrypoint's readSettings refuses it, naming it.
 */
function startupLogSettings(env: NodeJS.ProcessEnv): LogSettings {
  return {
    LOG_LEVEL: SETTINGS.LOG_LEVEL.parse.safeParse(givenValue(env, 'LOG_LEVEL') ?? '').data,
    LOG_FORMAT: SETTINGS.LOG_FORMAT.parse.safeParse(givenValue(env, 'LOG_FORMAT') ?? '').data,
  };
}

export const logger = createLogger(startupLogSettings(process.env));

const CONSOLE_LEVELS = { error: 'error', warn: 'warn', info: 'info', log: 'info', debug: 'debug' } as const;

/** Longest console text logged whole: libraries quote request values (a JSON-RPC id, a tenant) in it. */
const MAX_CONSOLE_TEXT = 2_000;

/**
 * Reasons of the A2A errors a client causes (an unknown task, a malformed request, an unsupported
 * version, ...), as opposed to the server's own (INTERNAL_ERROR, INVALID_AGENT_RESPONSE, Temporal
 * out of reach).
 */
const CLIENT_REASONS = new Set([
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
  'VERSION_NOT_SUPPORTED',
  'INVALID_PARAMS',
]);

function isClientMistake(error: unknown): error is A2AError {
  return error instanceof A2AError && CLIENT_REASONS.has(error.reason);
}

/**
 * A refusal that needs an operator, not a fix of the server: a task blocked by a deploy, no worker
 * running (src/tasks/errors.ts marks them). Logged at warn without a stack: the gateway has logged
 * it already, with the task ID.
 */
function isDeploymentRefusal(error: unknown): error is A2AError {
  return error instanceof A2AError && (error as { deploymentRefusal?: unknown }).deploymentRefusal === true;
}

/** `text` cut to `max` characters on a code point boundary, marked when cut. */
function clipped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max).replace(/[\uD800-\uDBFF]$/, '')}…` : text;
}

/**
 * Sends `console` output (libraries such as the A2A SDK write request errors there) through the
 * logger, so every line of a server process is one structured entry: a request ID carrying a
 * newline and a JSON object cannot forge a log line of its own. Errors go in `err`, text in `msg`
 * with line breaks escaped and its length bounded. The SDK writes every failed stream with
 * console.error; one that failed by the client's mistake (an unknown task, a malformed request) is
 * logged at info, without a stack, in `clientError`: any caller can cause as many as it likes, and
 * they are no fault of the server's; a deployment's refusal (isDeploymentRefusal) at warn. For the
 * CLI's server processes; a library must not take over console.
 */
export function routeConsoleToLogger(log: Logger = logger): void {
  for (const [method, level] of Object.entries(CONSOLE_LEVELS)) {
    console[method as keyof typeof CONSOLE_LEVELS] = (...args: unknown[]) => {
      const err = args.find((arg) => arg instanceof Error);
      const text = clipped(format(...args.filter((arg) => arg !== err)), MAX_CONSOLE_TEXT).replace(/\r?\n|\r/g, '\\n');
      if (isClientMistake(err)) {
        const clientError = { name: err.name, reason: err.reason, message: clipped(err.message, MAX_CONSOLE_TEXT) };
        return log[level === 'debug' ? 'debug' : 'info']({ component: 'console', clientError }, text);
      }
      if (isDeploymentRefusal(err)) {
        const refusal = { name: err.name, reason: err.reason, message: clipped(err.message, MAX_CONSOLE_TEXT) };
        return log[level === 'error' ? 'warn' : level]({ component: 'console', refusal }, text);
      }
      log[level]({ component: 'console', ...(err !== undefined && { err }) }, text);
    };
  }
}
