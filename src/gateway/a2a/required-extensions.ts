/**
 * A2A extensions an agent declares `required` on its card: a request that does not name each of
 * them in `A2A-Extensions` (the SDK parses the header, or gRPC metadata, into the call context) is
 * refused with ExtensionSupportRequired before it reaches Temporal. The SDK (1.3.0) checks this only
 * in its own DefaultRequestHandler, and only for message sends; this gateway's handler replaces that
 * one, and checks every method but the card reads.
 */
import { ExtensionSupportRequiredError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { aroundEachCall, refusedStream, type UnaryMethod } from './handler-chain.js';

/** Card reads need no extension: that is where a client learns which ones are required. */
const OPEN_METHODS = new Set<UnaryMethod>(['getAgentCard', 'getAuthenticatedExtendedAgentCard']);

export function requireExtensions(handler: A2ARequestHandler, required: readonly string[]): A2ARequestHandler {
  if (required.length === 0) return handler;
  const refusal = (context: ServerCallContext | undefined) => {
    const named = new Set(context?.requestedExtensions ?? []);
    const missing = required.filter((uri) => !named.has(uri));
    if (missing.length === 0) return undefined;
    return new ExtensionSupportRequiredError(
      `This agent requires the extension(s) ${missing.join(', ')}: name them in the A2A-Extensions header`,
    );
  };
  return aroundEachCall(handler, {
    unary(method, _params, context, call) {
      const refused = OPEN_METHODS.has(method) ? undefined : refusal(context);
      return refused ? Promise.reject(refused) : call();
    },
    stream(_method, _params, context, call) {
      const refused = refusal(context);
      return refused ? refusedStream(refused) : call();
    },
  });
}
