/**
 * Workflow interceptors bundled only while tracing is on (src/telemetry/temporal-tracing.ts), inside
 * Temporal's own OpenTelemetry interceptors: the span those opened is active here. They add the A2A
 * task's attributes, and link every update (a reply, a cancel) to the task's own trace. A reply is
 * a request of its own, often from another client, so it starts a trace of its own; the link is
 * where that trace and the task's meet (the agent's work after the reply stays in the task's trace).
 */
import { trace, type Span, type SpanContext } from '@opentelemetry/api';
import {
  defaultPayloadConverter,
  workflowInfo,
  type ActivityInput,
  type Next,
  type SignalInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { CONTEXT_ID_ATTRIBUTE } from '../protocol/search-attributes.js';
import { CONTEXT_ID_HEADER, taskSpanAttributes } from '../protocol/telemetry.js';

class TaskTracing implements WorkflowInboundCallsInterceptor, WorkflowOutboundCallsInterceptor {
  /** The run's span: a continued run's is in the same trace, since continue-as-new carries the context. */
  private taskSpan?: SpanContext;

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const span = tagged();
    this.taskSpan = span?.spanContext();
    return next(input);
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const span = tagged();
    const task = this.taskSpan;
    if (span && task && span.spanContext().traceId !== task.traceId) span.addLink({ context: task });
    return next(input);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    tagged();
    return next(input);
  }

  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) {
    tagged();
    // The activity's worker cannot read the workflow's search attributes: the context ID travels with it.
    const contextId = workflowInfo().typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE);
    if (!contextId) return next(input);
    const headers = { ...input.headers, [CONTEXT_ID_HEADER]: defaultPayloadConverter.toPayload(contextId) };
    return next({ ...input, headers });
  }
}

/** The active span, given the task's attributes. */
function tagged(): Span | undefined {
  const span = trace.getActiveSpan();
  const { workflowId, workflowType, typedSearchAttributes } = workflowInfo();
  span?.setAttributes(
    taskSpanAttributes({ workflowId, agent: workflowType, contextId: typedSearchAttributes.get(CONTEXT_ID_ATTRIBUTE) }),
  );
  return span;
}

export const interceptors = (): WorkflowInterceptors => {
  const tracing = new TaskTracing();
  return { inbound: [tracing], outbound: [tracing] };
};
