/**
 * Turns what the Temporal client throws into the A2A errors the SDK adapters put on the wire
 * (JSON-RPC code, HTTP status, gRPC status). Anything unexpected stays a plain Error (-32603).
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  A2AError,
  RequestMalformedError,
  type A2AErrorInfo,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { TaskErrorType, type RefusedReplyStanding, type WrongAgentDetails } from '../protocol/errors.js';
import { grpcCode, grpcStatusDetails } from '../temporal/grpc-code.js';

/** The ErrorInfo domain of this gateway's own reasons (A2A's are `a2a-protocol.org`). */
export const GATEWAY_ERROR_DOMAIN = 'a2a-temporal';
/** The google.rpc.ErrorInfo of an answer that failed because Temporal was out of reach. */
export const TEMPORAL_UNAVAILABLE = { reason: 'TEMPORAL_UNAVAILABLE', domain: GATEWAY_ERROR_DOMAIN } as const;
/** Its message: all a client of the SDK's REST transport has left to tell it inside a stream. */
export const TEMPORAL_UNAVAILABLE_MESSAGE = 'Temporal is unreachable, retry later';
/** The google.rpc.ErrorInfo of an answer that failed because Temporal refused the call as over a limit. */
export const TEMPORAL_BUSY = { reason: 'TEMPORAL_BUSY', domain: GATEWAY_ERROR_DOMAIN } as const;
/** Its message, which a client of the SDK's REST transport reads inside a stream (as TEMPORAL_UNAVAILABLE_MESSAGE). */
export const TEMPORAL_BUSY_MESSAGE = 'Temporal is busy, retry later';

/**
 * Temporal could not take the call now; clients may retry the same request. An A2AError so that the
 * SDK adapters carry its ErrorInfo (JSON-RPC `error.data`, HTTP+JSON `error.details`) and clients
 * act on the reason, not on the text; the JSON-RPC code stays -32603. The transports answer it
 * 503 + Retry-After or UNAVAILABLE (src/gateway/a2a/guarded-handler.ts notes the outcome).
 */
export abstract class TemporalRetryLaterError extends A2AError {
  /** The reason is this gateway's, not one of A2A's: the domain says whose (the SDK types it as A2A's only). */
  override toErrorInfo(): A2AErrorInfo {
    return { ...super.toErrorInfo(), domain: GATEWAY_ERROR_DOMAIN } as unknown as A2AErrorInfo;
  }
}

/** The Temporal frontend cannot be reached. */
export class TemporalUnavailableError extends TemporalRetryLaterError {
  override readonly reason = TEMPORAL_UNAVAILABLE.reason;

  constructor(cause?: unknown) {
    super({ message: TEMPORAL_UNAVAILABLE_MESSAGE, cause });
  }
}

/**
 * Temporal answered RESOURCE_EXHAUSTED: over one of its limits (requests per second, concurrent
 * long polls) even after the client's own retries. Temporal is up, so the gateway stays ready.
 */
export class TemporalBusyError extends TemporalRetryLaterError {
  override readonly reason = TEMPORAL_BUSY.reason;

  constructor(cause?: unknown) {
    super({ message: TEMPORAL_BUSY_MESSAGE, cause });
  }
}

/**
 * The task's workflow task keeps failing (blocked.ts): nothing it is sent applies
 * until a fixed worker runs. On the wire an UnsupportedOperation (JSON-RPC -32004, HTTP 400 and
 * gRPC FAILED_PRECONDITION: the SDK adapters pick both by the error's name), told apart by its
 * ErrorInfo reason; the request metrics count it as `TaskBlocked` (src/gateway/a2a/observed-handler.ts).
 */
export class TaskBlockedError extends UnsupportedOperationError {
  override readonly reason = 'TASK_BLOCKED';
  /** Logged at warn, not as a server fault (logging.ts): an operator's deploy needs fixing. */
  readonly deploymentRefusal = true;

  constructor(message: string, blockedReason: string) {
    super({ message, metadata: { blockedReason } });
    this.name = 'UnsupportedOperationError';
  }

  override toErrorInfo(): A2AErrorInfo {
    return { ...super.toErrorInfo(), domain: GATEWAY_ERROR_DOMAIN } as unknown as A2AErrorInfo;
  }
}

/**
 * A reply from someone who may not answer the question (not among its responders, or its requester):
 * on the wire the RequestMalformed it always was; the answer links' page tells it apart (a 403).
 */
export class ResponderNotAllowedError extends RequestMalformedError {
  constructor(message: string) {
    super(message);
    this.name = 'RequestMalformedError';
  }
}

/** Temporal's refusal of an Update while the workflow task is failing. */
export function isWorkflowTaskFailedRefusal(error: unknown): boolean {
  return (
    grpcCode(error) === GrpcStatus.FAILED_PRECONDITION &&
    error instanceof Error &&
    /workflow task in failed state/i.test(`${error.message} ${String(error.cause ?? '')}`)
  );
}

/** The google.rpc.ErrorInfo of an answer no worker could take: none polls the task's queue (or version). */
export const NO_WORKER = { reason: 'NO_WORKER', domain: GATEWAY_ERROR_DOMAIN } as const;

/** No worker runs that could take the task's message: retry once one does (update-watch.ts). */
export class NoWorkerError extends TemporalRetryLaterError {
  override readonly reason = NO_WORKER.reason;
  /** Logged at warn, not as a server fault (logging.ts): a worker needs starting. */
  readonly deploymentRefusal = true;

  constructor(message: string) {
    super({ message });
  }
}

export function taskNotFound(taskId: string): A2AError {
  return new TaskNotFoundError(`Task ${taskId} not found`);
}

/** The ErrorInfo metadata key that names the agent whose endpoint serves a task. */
export const TASK_AGENT_METADATA = 'taskAgent';

/**
 * A task asked for at another agent's endpoint, by a caller who may see it: still TaskNotFound here
 * (each agent's endpoint serves its own tasks), but naming the task's agent, in the message for a
 * person and in the ErrorInfo metadata for a client (the CLI goes there), on every transport.
 */
export function taskOfAnotherAgent(taskId: string, agent: string): A2AError {
  return new TaskNotFoundError({
    message: `Task ${taskId} is a task of agent ${agent}: ask its endpoint, /agents/${agent}/`,
    metadata: { [TASK_AGENT_METADATA]: agent },
  });
}

/** Maps a Temporal client failure to an A2A error; `taskId` names the task in messages. */
export function toA2AError(error: unknown, taskId?: string): unknown {
  if (error instanceof A2AError) return error; // TemporalRetryLaterError too
  if (error instanceof WorkflowNotFoundError) return taskNotFound(taskId ?? error.workflowId);
  if (error instanceof WorkflowUpdateFailedError) return fromValidatorFailure(error, taskId);
  if (isUnavailable(error)) return new TemporalUnavailableError(error);
  if (isTemporalBusy(error)) return new TemporalBusyError(error);
  if (grpcCode(error) === GrpcStatus.NOT_FOUND) return taskNotFound(taskId ?? 'unknown');
  return error;
}

function fromValidatorFailure(error: WorkflowUpdateFailedError, taskId: string | undefined): unknown {
  const cause = error.cause as { type?: string | null; message?: string; details?: unknown[] | null } | undefined;
  const message = cause?.message ?? error.message;
  const details = cause?.details?.[0] as Partial<RefusedReplyStanding & WrongAgentDetails> | undefined;
  const mapped = fromRefusal(cause?.type, message, taskId, details);
  if (mapped instanceof A2AError && typeof details?.state === 'string') {
    withStanding(mapped, details as RefusedReplyStanding);
  }
  return mapped;
}

function fromRefusal(
  type: string | null | undefined,
  message: string,
  taskId: string | undefined,
  details: Partial<WrongAgentDetails> | undefined,
): unknown {
  switch (type) {
    case TaskErrorType.TaskTerminal:
    case TaskErrorType.TaskNotWaitingForInput:
    case TaskErrorType.NotTaskOwner:
      return new UnsupportedOperationError(message);
    case TaskErrorType.TaskNotCancelable:
      return new TaskNotCancelableError(message);
    case TaskErrorType.WrongAgent:
      // The workflow names its agent only to a caller who may see the task, as a describe would.
      return taskId && typeof details?.agent === 'string'
        ? taskOfAnotherAgent(taskId, details.agent)
        : new TaskNotFoundError(message);
    case TaskErrorType.NotVisibleToCaller:
      return new TaskNotFoundError(message);
    case TaskErrorType.ContextMismatch:
    case TaskErrorType.IdempotencyKeyReused:
    case TaskErrorType.InvalidReply:
      return new RequestMalformedError(message);
    case TaskErrorType.ResponderNotAllowed:
      return new ResponderNotAllowedError(message);
    default:
      return new Error(`The task rejected the request: ${message}`);
  }
}

/** Refusals of a reply and where their task stood then; not on the wire, for the gateway's own pages. */
const standings = new WeakMap<A2AError, RefusedReplyStanding>();

/** Notes where the task stood when it refused `error`'s reply. */
export function withStanding<E extends A2AError>(error: E, standing: RefusedReplyStanding): E {
  standings.set(error, standing);
  return error;
}

/**
 * Where the task stood when it refused a reply from a caller who may see it (RefusedReplyStanding):
 * what the inbox and the answer links tell of the question they showed. Undefined for any other error.
 */
export function standingOf(error: unknown): RefusedReplyStanding | undefined {
  return error instanceof A2AError ? standings.get(error) : undefined;
}

/**
 * Temporal refused the call as over one of its limits: RESOURCE_EXHAUSTED sent by the server, which
 * says why in its status details. grpc-js's own RESOURCE_EXHAUSTED (a message over its size limit)
 * comes without them, and no retry would help it.
 */
export function isTemporalBusy(error: unknown): boolean {
  return grpcCode(error) === GrpcStatus.RESOURCE_EXHAUSTED && grpcStatusDetails(error) !== undefined;
}

export function isUnavailable(error: unknown): boolean {
  const code = grpcCode(error);
  if (code === GrpcStatus.UNAVAILABLE) return true;
  // A lazy connection that never came up fails with a plain connect error, not a gRPC status.
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : '';
  return /ECONNREFUSED|Failed to connect|connection refused|transport error/i.test(text);
}

/** Runs a Temporal call, translating failures. */
export async function temporalCall<T>(taskId: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toA2AError(error, taskId);
  }
}
