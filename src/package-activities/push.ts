/**
 * The push delivery activity: one POST of one notification. Any failure throws, and Temporal
 * retries it with backoff (see src/workflows/outbox.ts); a URL the policy refuses and a
 * redirect fail for good, since trying again cannot change them.
 *
 * With tracing on, each POST is a client span under the activity's, and the webhook receives its
 * `traceparent`; with tracing off the OpenTelemetry API is a no-op and adds nothing.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { context as otelContext, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  NOTIFICATION_ID_HEADER,
  NOTIFICATION_TOKEN_HEADER,
  PUSH_ACTIVITY,
  PUSH_URL_REFUSED,
  type PushNotification,
} from '../protocol/push.js';
import type { JWK } from 'jose';
import { NOTIFICATION_SIGNATURE_HEADER, notificationSigner, type NotificationSigner } from '../push/signing.js';
import { guardedAgent, PushUrlRefusedError, urlProblem, type PushUrlPolicy } from '../push/url-policy.js';

/** Per attempt: connecting, sending and the answer's head. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Of an error answer, only this much is read (for the failure's message). */
const MAX_ERROR_BODY_BYTES = 1_024;

export function createPushActivities(policy: PushUrlPolicy, signingKey: JWK | undefined) {
  const sign = signingKey && notificationSigner(signingKey);
  return { [PUSH_ACTIVITY]: (notification: PushNotification) => deliverNotification(notification, policy, sign) };
}

/** `contentType`: the A2A StreamResponse's by default; approver notices (src/channels/webhook.ts) are plain JSON. */
export async function deliverNotification(
  notification: PushNotification,
  policy: PushUrlPolicy,
  sign?: NotificationSigner,
  contentType = 'application/a2a+json',
): Promise<void> {
  const { config, notificationId, body } = notification;
  const problem = urlProblem(config.url, policy);
  if (problem) throw ApplicationFailure.nonRetryable(problem, PUSH_URL_REFUSED);
  const payload = Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {
    'content-type': contentType,
    'content-length': String(payload.length),
    [NOTIFICATION_ID_HEADER]: notificationId,
    ...(config.token && { [NOTIFICATION_TOKEN_HEADER]: config.token }),
    ...(config.authentication && {
      authorization: `${config.authentication.scheme} ${config.authentication.credentials}`,
    }),
    ...(sign && { [NOTIFICATION_SIGNATURE_HEADER]: await sign(payload, notificationId) }),
  };
  const url = new URL(config.url);
  await tracer().startActiveSpan(
    'POST',
    {
      kind: SpanKind.CLIENT,
      // Host and port only: a webhook URL's path or query may carry a secret.
      attributes: { 'http.request.method': 'POST', 'server.address': url.hostname, 'server.port': portOf(url) },
    },
    async (span) => {
      try {
        propagation.inject(otelContext.active(), headers);
        const status = await post(url, headers, payload, policy);
        span.setAttribute('http.response.status_code', status);
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** One POST; resolves with the 2xx status, throws the failure Temporal should see for any other outcome. */
async function post(
  url: URL,
  headers: Record<string, string>,
  payload: Buffer,
  policy: PushUrlPolicy,
): Promise<number> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = AbortSignal.any([Context.current().cancellationSignal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
  let response: IncomingMessage;
  try {
    response = await new Promise<IncomingMessage>((resolve, reject) => {
      // An agent of its own per attempt: its connections are guarded, and none is kept for later.
      const agent = guardedAgent(url.protocol, policy);
      const req = send(url, { method: 'POST', headers, agent, signal }, resolve);
      req.on('error', reject);
      req.end(payload);
    });
  } catch (error) {
    if (error instanceof PushUrlRefusedError) throw ApplicationFailure.nonRetryable(error.message, PUSH_URL_REFUSED);
    throw error;
  }
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) {
    // The answer's body means nothing here: not read at all.
    response.destroy();
    return status;
  }
  const text = await readCapped(response, MAX_ERROR_BODY_BYTES);
  if (status >= 300 && status < 400) {
    throw ApplicationFailure.nonRetryable(
      `The webhook answered ${status}: redirects are not followed`,
      PUSH_URL_REFUSED,
    );
  }
  throw ApplicationFailure.retryable(`The webhook answered ${status}${text ? `: ${text}` : ''}`, 'PushDeliveryFailed');
}

function tracer() {
  return trace.getTracer('a2a-temporal.push');
}

function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
}

function failed(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (error instanceof Error) span.recordException(error);
}

/** At most `max` bytes of the answer, then the connection is dropped. */
async function readCapped(response: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) break;
    }
  } catch {
    // A broken error answer still fails the attempt with its status.
  } finally {
    response.destroy();
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8').trim();
}
