/**
 * Exit codes scripts can rely on, and the translation of whatever a command throws into one of
 * them with a message a human can act on.
 */
import { A2AError, A2A_ERROR_CODE, isJsonRpcError, isRestError } from '@a2a-js/sdk/errors';
import {
  GATEWAY_ERROR_DOMAIN,
  NO_WORKER,
  TEMPORAL_BUSY,
  TEMPORAL_BUSY_MESSAGE,
  TEMPORAL_UNAVAILABLE,
  TEMPORAL_UNAVAILABLE_MESSAGE,
} from '../tasks/errors.js';
import { ConfigError } from '../config/config-error.js';
import { devCommand } from './dev-command.js';
import { commandHint, shellWord, type AgentAddress } from './format.js';

export const ExitCode = {
  Ok: 0,
  /** Bad command line: unknown command or option, missing argument, invalid JSON. */
  Usage: 1,
  /** The gateway (or, for `setup`, Temporal) could not be reached or was busy, or the connection dropped. */
  Unreachable: 2,
  /** The gateway answered with an error: an A2A error (task not found, ...), unknown agent, bad response. */
  Remote: 3,
  /** send/reply: the task ended failed, rejected or canceled. */
  TaskUnsuccessful: 4,
  /** check-deploy: tasks under way would break on the new code. */
  WouldBreak: 5,
  /** receipts verify, audit verify: the file was altered, cut, or not signed by the key. */
  Refused: 6,
  /** Ctrl+C (128 + SIGINT, the shell convention); a task being followed keeps running. */
  Interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit codes as every help text ends with them. */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '    0  success',
  '    1  usage error (unknown command or option, missing argument, invalid --data JSON)',
  '    2  gateway or Temporal unreachable or busy (retry later), or the connection dropped mid-call',
  '    3  the gateway answered with an error: A2A error (code and message printed, e.g. -32001',
  '       task not found), unknown agent, unexpected response; setup: Temporal refused',
  '    4  send/reply: the task ended failed, rejected or canceled',
  '    5  check-deploy: tasks under way would break on the new code',
  '    6  receipts verify, audit verify: refused (altered, cut short, or not signed by the key)',
  '  130  interrupted with Ctrl+C while following a task (the task keeps running)',
];

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** A2A error code (JSON-RPC numbering) when the gateway returned one. */
    readonly code?: number,
    /** What the gateway answered, for callers that act on more than the message (task-agent.ts). */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.Usage);
    this.name = 'UsageError';
  }
}

/** Node's fetch (undici) and the gRPC stack report an unreachable peer with these codes. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Where a command was talking to, so messages can name it and hint how to find its task again. */
export interface ErrorContext extends AgentAddress {
  /** Set when a task is known: an interrupted wait leaves it running, and the message says how to find it. */
  taskId?: string;
}

/** Maps any thrown value to a CliError with the right exit code. */
export function toCliError(error: unknown, context: ErrorContext): CliError {
  if (error instanceof CliError) return error;
  // A setting that is wrong is the caller's to fix, wherever it was read: a usage error, like a bad option.
  if (error instanceof ConfigError) return new UsageError(error.message);
  const followUp = context.taskId
    ? ` The task keeps running: ${commandHint(`tasks show ${shellWord(context.taskId)}`, context)}`
    : '';
  // A stream's error event reaches the JSON-RPC client as a plain Error whose cause is the A2A error.
  if (!(error instanceof A2AError) && error instanceof Error && error.cause instanceof A2AError) error = error.cause;
  if (error instanceof A2AError) {
    if (saysTemporalUnavailable(error)) {
      return new CliError(
        `The gateway at ${context.gatewayUrl} cannot reach Temporal: ${error.message}.${followUp}`,
        ExitCode.Unreachable,
      );
    }
    if (saysTemporalBusy(error)) {
      return new CliError(
        `The gateway at ${context.gatewayUrl} answered: ${error.message}.${followUp}`,
        ExitCode.Unreachable,
      );
    }
    // The SDK's REST client keeps the HTTP status but drops ErrorInfo reasons A2A does not define;
    // the gateway answers 503 when what it needs (Temporal, the identity provider) is out of reach.
    if (isRestError(error) && error.statusCode === 503) {
      return new CliError(
        `The gateway at ${context.gatewayUrl} is unavailable (HTTP 503): ${error.message}.${followUp}`,
        ExitCode.Unreachable,
      );
    }
    const code = a2aErrorCode(error);
    return new CliError(`A2A error ${code ?? error.reason}: ${error.message}`, ExitCode.Remote, code, error);
  }
  const network = networkErrorCode(error);
  if (network === 'UND_ERR_HEADERS_TIMEOUT') {
    return new CliError(
      `The gateway at ${context.gatewayUrl} did not answer within Node's 5-minute limit for a blocking call; ` +
        `use --stream for long tasks.${followUp}`,
      ExitCode.Unreachable,
    );
  }
  if (network) {
    const lost = network === 'UND_ERR_SOCKET' || network === 'ECONNRESET' || network === 'UND_ERR_BODY_TIMEOUT';
    return new CliError(
      lost && context.taskId
        ? `Lost the connection to the gateway at ${context.gatewayUrl} (${network}).${followUp}`
        : `Cannot reach the gateway at ${context.gatewayUrl}: is it running? (${devCommand()})`,
      ExitCode.Unreachable,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(message, ExitCode.Remote);
}

/**
 * The gateway's ErrorInfo for "Temporal is out of reach", as JSON-RPC carries it in `error.data`. The
 * SDK's REST client drops reasons A2A does not define, and an error inside a stream comes without
 * the 503, so there the gateway's own message for this error is all that is left to tell it.
 */
function saysTemporalUnavailable(error: A2AError): boolean {
  if (gatewayReasons(error).includes(TEMPORAL_UNAVAILABLE.reason)) return true;
  return isRestError(error) && error.message === TEMPORAL_UNAVAILABLE_MESSAGE;
}

/** The same for "Temporal is busy", and for "no worker runs that could take it" (both: retry later). */
function saysTemporalBusy(error: A2AError): boolean {
  if (gatewayReasons(error).some((reason) => reason === TEMPORAL_BUSY.reason || reason === NO_WORKER.reason)) {
    return true;
  }
  return isRestError(error) && error.message === TEMPORAL_BUSY_MESSAGE;
}

/** The reasons of the gateway's own ErrorInfo entries (domain a2a-temporal) in a JSON-RPC error's data. */
function gatewayReasons(error: A2AError): string[] {
  const details = isJsonRpcError(error) ? error.data : undefined;
  if (!Array.isArray(details)) return [];
  return details.filter((info) => info.domain === GATEWAY_ERROR_DOMAIN).map((info) => String(info.reason));
}

/** The JSON-RPC numbering of an A2A error, whichever transport carried it. */
function a2aErrorCode(error: A2AError): number | undefined {
  const envelope = (error as { envelopeCode?: unknown }).envelopeCode;
  if (typeof envelope === 'number') return envelope;
  return REASON_CODES[error.reason];
}

const REASON_CODES: Record<string, number> = {
  TASK_NOT_FOUND: A2A_ERROR_CODE.TASK_NOT_FOUND,
  TASK_NOT_CANCELABLE: A2A_ERROR_CODE.TASK_NOT_CANCELABLE,
  PUSH_NOTIFICATION_NOT_SUPPORTED: A2A_ERROR_CODE.PUSH_NOTIFICATION_NOT_SUPPORTED,
  UNSUPPORTED_OPERATION: A2A_ERROR_CODE.UNSUPPORTED_OPERATION,
  CONTENT_TYPE_NOT_SUPPORTED: A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED,
  INVALID_AGENT_RESPONSE: A2A_ERROR_CODE.INVALID_AGENT_RESPONSE,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: A2A_ERROR_CODE.EXTENDED_CARD_NOT_CONFIGURED,
  EXTENSION_SUPPORT_REQUIRED: A2A_ERROR_CODE.EXTENSION_SUPPORT_REQUIRED,
  VERSION_NOT_SUPPORTED: A2A_ERROR_CODE.VERSION_NOT_SUPPORTED,
  INVALID_PARAMS: A2A_ERROR_CODE.INVALID_PARAMS,
  INTERNAL_ERROR: A2A_ERROR_CODE.INTERNAL_ERROR,
};

/** The network error code anywhere in the cause chain (fetch wraps the socket error in `cause`). */
export function networkErrorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const inner = errors.map(networkErrorCode).find((found) => found !== undefined);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return 'ECONNREFUSED';
  return undefined;
}
