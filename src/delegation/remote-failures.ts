/**
 * Which failures of a call to a remote agent no retry can mend, as the non-retryable failures the
 * workflow reads by type: the remote agent refused the request (it would again), or the agent
 * cannot be used at all. Everything else (refused connections, 5xx, timeouts) is retried.
 */
import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { ApplicationFailure } from '@temporalio/common';
import { REMOTE_AGENT_REFUSED, REMOTE_AGENT_UNUSABLE } from '../protocol/delegation.js';

/** A call that cannot go on: the workflow throws RemoteAgentFailed ('unusable') at once. */
export function unusable(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, REMOTE_AGENT_UNUSABLE);
}

/** Answers that the same request will get again: not an outage, and not worth retrying. */
const REFUSALS = [
  TaskNotFoundError,
  TaskNotCancelableError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  RequestMalformedError,
];

/**
 * Node's fetch refusing a URL by the fetch spec (its network error's message, the cause of its
 * "fetch failed"): a port on the spec's blocklist, a scheme it does not fetch. Not a network error.
 */
const FETCH_REFUSALS = new Set(['bad port', 'unknown scheme']);

/** 4xx answers to a card request that a later request may not get (a timeout, a rate limit). */
const PASSING_CARD_STATUSES = new Set([408, 425, 429]);

/**
 * The error as the failure the activity ends with: final when retrying cannot help, as thrown
 * otherwise (an authentication refusal a rotated key may cure is retried, too).
 */
export function finalFailureOf(thrown: unknown): unknown {
  if (thrown instanceof ApplicationFailure) return thrown;
  const error = thrown instanceof Error && thrown.cause instanceof A2AError ? thrown.cause : thrown;
  if (REFUSALS.some((refusal) => error instanceof refusal)) {
    return ApplicationFailure.nonRetryable((error as Error).message, REMOTE_AGENT_REFUSED);
  }
  for (let cause: unknown = thrown; cause instanceof Error; cause = cause.cause) {
    if (FETCH_REFUSALS.has(cause.message)) return unusable(`fetch refuses the agent's URL: ${cause.message}`);
  }
  return thrown;
}

/** Fetches an agent card; a 4xx answer (the card is not there, or not for us) ends the call. */
export async function fetchCard(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (response.status >= 400 && response.status < 500 && !PASSING_CARD_STATUSES.has(response.status)) {
    throw unusable(`The agent card at ${String(url)} answers HTTP ${response.status}`);
  }
  return response;
}
