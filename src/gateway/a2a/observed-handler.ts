/**
 * Every A2A call, traced and measured where the three transports meet: JSON-RPC, HTTP+JSON and gRPC
 * all end in the request handler. Each call gets a server span that continues the caller's W3C
 * `traceparent` (HTTP header or gRPC metadata) or starts a trace, with the A2A method, transport,
 * agent, task and context as attributes; the Temporal client calls made under it carry it on into
 * the workflow. Each call is also counted by outcome and timed (streams: open, first event, end).
 * Wraps the guarded handler, so outcomes are what the caller saw. People's answers (task-replies.ts)
 * are observed here too, as SendMessage calls whose transport is their channel.
 */
import { context as otelContext, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import { A2AError } from '@a2a-js/sdk/errors';
import { TaskBlockedError } from '../../tasks/errors.js';
import { STATE_HEADERS_KEY, type A2ARequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { SPAN_ATTRIBUTES } from '../../protocol/telemetry.js';
import type { GatewayMetrics, RequestLabels } from '../monitoring/metrics.js';
import { signalOf, transportOf } from '../http/request-context.js';
import { aroundEachCall } from './handler-chain.js';

export interface Observers {
  agent: string;
  metrics?: GatewayMetrics;
  tracer?: Tracer;
}

/** The handler's methods by the names the A2A v1.0 specification gives them. */
const A2A_METHODS: Record<Exclude<keyof A2ARequestHandler, 'getAgentCard'>, string> = {
  sendMessage: 'SendMessage',
  sendMessageStream: 'SendStreamingMessage',
  getTask: 'GetTask',
  cancelTask: 'CancelTask',
  resubscribe: 'SubscribeToTask',
  listTasks: 'ListTasks',
  getAuthenticatedExtendedAgentCard: 'GetExtendedAgentCard',
  createTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  getTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  listTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigs',
  deleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
};

/** The handler itself when there is nothing to observe with (tracing and metrics off). */
export function observeHandler(handler: A2ARequestHandler, observers: Observers): A2ARequestHandler {
  if (!observers.metrics && !observers.tracer) return handler;
  return aroundEachCall(handler, {
    unary(method, params, context, call) {
      // The public card is a static document, served from memory.
      if (method === 'getAgentCard') return call();
      return observedCall(observers, A2A_METHODS[method], params, context, call);
    },
    stream(method, params, context, call) {
      const observed = new ObservedCall(observers, A2A_METHODS[method], params, context);
      return observed.stream(observed.within(call));
    },
  });
}

/**
 * One unary call, traced and counted as the A2A `method` (as the specification names it): the
 * handler's, and people's answers (task-replies.ts), which are SendMessage follow-ups.
 */
export function observedCall<T>(
  observers: Observers,
  method: string,
  params: unknown,
  context: ServerCallContext | undefined,
  call: () => Promise<T>,
): Promise<T> {
  if (!observers.metrics && !observers.tracer) return call();
  const observed = new ObservedCall(observers, method, params, context);
  return observed.answer(observed.within(call));
}

class ObservedCall {
  private readonly started = performance.now();
  private readonly labels: RequestLabels;
  private readonly span?: Span;
  private readonly spanContext?: Context;

  constructor(
    private readonly observers: Observers,
    method: string,
    params: unknown,
    private readonly context: ServerCallContext | undefined,
  ) {
    this.labels = { method, transport: transportOf(context), agent: observers.agent };
    if (!observers.tracer) return;
    const headers = context?.state.get(STATE_HEADERS_KEY) as Record<string, string | string[] | undefined> | undefined;
    const parent = headers ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    this.span = observers.tracer.startSpan(
      `A2A ${method}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [SPAN_ATTRIBUTES.method]: method,
          [SPAN_ATTRIBUTES.transport]: this.labels.transport,
          [SPAN_ATTRIBUTES.agent]: observers.agent,
          ...taskAttributes(params),
        },
      },
      parent,
    );
    this.spanContext = trace.setSpan(parent, this.span);
  }

  /** Runs `work` with the call's span active, so the Temporal calls it makes carry it. */
  within<T>(work: () => T): T {
    return this.spanContext ? otelContext.with(this.spanContext, work) : work();
  }

  answer<T>(result: Promise<T>): Promise<T> {
    return result.then(
      (value) => {
        this.end('ok', value);
        this.observers.metrics?.answered(this.labels, 'ok', this.seconds());
        return value;
      },
      (error: unknown) => {
        const outcome = this.outcomeOf(error);
        this.end(outcome, undefined, error);
        this.observers.metrics?.answered(this.labels, outcome, this.seconds());
        throw error;
      },
    );
  }

  async *stream<T>(events: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
    const { metrics } = this.observers;
    metrics?.streamOpened(this.labels);
    let outcome = 'ok';
    let failure: unknown;
    let first: T | undefined;
    let finished = false;
    try {
      for (;;) {
        const step = await this.within(() => events.next());
        if (step.done) {
          finished = true;
          return;
        }
        if (first === undefined) {
          first = step.value;
          metrics?.streamFirstEvent(this.labels, this.seconds());
        }
        yield step.value;
      }
    } catch (error) {
      finished = true;
      failure = error;
      outcome = this.outcomeOf(error);
      throw error;
    } finally {
      // The client went away mid-stream: the handler's own stream must stop too (its history long-poll).
      if (!finished) await events.return(undefined);
      // A stream the handler ended because its caller had gone (the request's signal fired) did not end for the caller.
      if (outcome === 'ok' && signalOf(this.context).aborted) outcome = 'ClientGone';
      metrics?.streamEnded(this.labels, outcome);
      this.end(outcome, first, failure);
    }
  }

  private seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** What the caller got: ok, an A2A error by name (TaskNotFound, ...), TaskBlocked, TemporalUnavailable, TemporalBusy, NoWorker, ClientGone or Internal. */
  private outcomeOf(error: unknown): string {
    // On the wire an UnsupportedOperation (src/tasks/errors.ts); counted apart so an operator can alert on it.
    if (error instanceof TaskBlockedError) return 'TaskBlocked';
    if (error instanceof A2AError) return error.name.replace(/Error$/, '');
    if (signalOf(this.context).aborted) return 'ClientGone';
    return 'Internal';
  }

  private end(outcome: string, result: unknown, error?: unknown): void {
    const span = this.span;
    if (!span) return;
    span.setAttributes({ [SPAN_ATTRIBUTES.outcome]: outcome, ...taskAttributes(result) });
    // A2A errors are the caller's mistakes (not found, malformed): like HTTP 4xx, not the server's failure.
    if (SERVER_FAULTS.has(outcome)) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      if (error) span.recordException(error as Error);
    }
    span.end();
  }
}

/**
 * The task and context a request or an answer names: requests name them in `id` / `taskId` or in
 * their message, answers are a Task (`id`), a Message or a stream event (`taskId`), maybe wrapped.
 */
function taskAttributes(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  if (isRecord(value.payload)) return taskAttributes(value.payload.value);
  if (isRecord(value.message)) return taskAttributes(value.message);
  // `taskId` before `id`: a push notification config's `id` is its own.
  const taskId = nonEmpty(value.taskId) ?? nonEmpty(value.id);
  const contextId = nonEmpty(value.contextId);
  return {
    ...(taskId && { [SPAN_ATTRIBUTES.taskId]: taskId }),
    ...(contextId && { [SPAN_ATTRIBUTES.contextId]: contextId }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Outcomes that are the deployment's fault, not the caller's: their spans are errors. */
const SERVER_FAULTS = new Set(['Internal', 'TemporalUnavailable', 'TemporalBusy', 'TaskBlocked', 'NoWorker']);
