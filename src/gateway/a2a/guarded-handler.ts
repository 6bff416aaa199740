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

const log = logger.child({ component: 'gateway' });

/** Answered from the card alone: Temporal's state does not matter to them. */
const WITHOUT_TEMPORAL = new Set<PropertyKey>(['getAgentCard', 'getAuthenticatedExtendedAgentCard']);

export function guardHandler(handler: A2ARequestHandler, health: TemporalHealth): A2ARequestHandler {
  return new Proxy(handler, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || WITHOUT_TEMPORAL.has(property)) return value;
      const method = String(property);
      return (params: unknown, context?: ServerCallContext) => {
        const failed = (error: unknown) => publicError(error, method, context, health);
        if (health.knownDown) {
          outcomeOf(context).retryLater = true;
          const refused = new TemporalUnavailableError();
          return isStreaming(method) ? refusedStream(refused) : Promise.reject(refused);
        }
        const result: unknown = value.call(target, params, context);
        if (isAsyncGenerator(result)) return guardedStream(result, failed);
        return Promise.resolve(result).catch((error: unknown) => {
          throw failed(error);
        });
      };
    },
  });
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

export function isStreaming(method: string): boolean {
  return method === 'sendMessageStream' || method === 'resubscribe';
}

export function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value && 'throw' in value;
}

async function* guardedStream<T>(stream: AsyncGenerator<T>, failed: (error: unknown) => unknown): AsyncGenerator<T> {
  try {
    yield* stream;
  } catch (error) {
    throw failed(error);
  }
}

// eslint-disable-next-line require-yield -- a stream that fails before its first event
export async function* refusedStream(error: Error): AsyncGenerator<never> {
  throw error;
}
