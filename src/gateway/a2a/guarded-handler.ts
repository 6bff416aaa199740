/**
 * The edge between the request handler and the SDK adapters: whatever a request fails with leaves
 * the gateway as an A2A error, as "Temporal is unreachable (or busy), retry later" (503 / UNAVAILABLE),
 * or as "Internal error (ref …)" whose reference is also in the log — never as internal error text.
 * While Temporal is known to be down, calls that need it fail at once.
 */
import { A2AError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { logger } from '../../logging.js';
import { TemporalRetryLaterError, TemporalUnavailableError } from '../../tasks/errors.js';
import { logInternalError } from '../http/refusals.js';
import { outcomeOf, signalOf } from '../http/request-context.js';
import type { TemporalHealth } from '../monitoring/temporal-health.js';
import { aroundEachCall, refusedStream, type UnaryMethod } from './handler-chain.js';

const log = logger.child({ component: 'gateway' });

/** Answered from the card alone: Temporal's state does not matter to them. */
const WITHOUT_TEMPORAL = new Set<UnaryMethod>(['getAgentCard', 'getAuthenticatedExtendedAgentCard']);

export function guardHandler(handler: A2ARequestHandler, health: TemporalHealth): A2ARequestHandler {
  return aroundEachCall(handler, {
    unary(method, _params, context, call) {
      return WITHOUT_TEMPORAL.has(method) ? call() : guardedCall(health, method, context, call);
    },
    stream(method, _params, context, call) {
      if (health.knownDown) return refusedStream(refusedWhileDown(context));
      return guardedStream(call(), (error) => publicError(error, method, context, health));
    },
  });
}

/**
 * One call that needs Temporal, guarded: refused at once while Temporal is known to be down, and
 * failing only as the public errors above. The handler's unary methods and people's answers
 * (task-replies.ts) go through it.
 */
export function guardedCall<T>(
  health: TemporalHealth,
  method: string,
  context: ServerCallContext | undefined,
  call: () => Promise<T>,
): Promise<T> {
  if (health.knownDown) return Promise.reject(refusedWhileDown(context));
  return call().catch((error: unknown) => {
    throw publicError(error, method, context, health);
  });
}

function refusedWhileDown(context: ServerCallContext | undefined): TemporalUnavailableError {
  outcomeOf(context).retryLater = true;
  return new TemporalUnavailableError();
}

function publicError(error: unknown, method: string, context: ServerCallContext | undefined, health: TemporalHealth) {
  // Before the A2A errors: it is one too (for its ErrorInfo), but answers 503 / UNAVAILABLE.
  if (error instanceof TemporalRetryLaterError) {
    if (error instanceof TemporalUnavailableError) health.markUnavailable();
    outcomeOf(context).retryLater = true;
    return error;
  }
  if (error instanceof A2AError) return error;
  // The client went away: nobody reads the answer, and the abort is not a fault.
  if (signalOf(context).aborted) return error;
  return new Error(logInternalError(log, error, { method }));
}

async function* guardedStream<T>(stream: AsyncGenerator<T>, failed: (error: unknown) => unknown): AsyncGenerator<T> {
  try {
    yield* stream;
  } catch (error) {
    throw failed(error);
  }
}
