/**
 * Temporal's half of tracing: the plugins that carry the span context from a client call (the
 * gateway's update-with-start, update, query, cancel) into the workflow, and from the workflow into
 * its activities. Temporal's own OpenTelemetry plugin does the carrying (and exports the workflow's
 * spans through a sink, since the sandbox has no exporter); this project's plugin adds the A2A
 * attributes and the links of replies to their task's trace.
 */
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { defaultPayloadConverter } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { CONTEXT_ID_HEADER, taskSpanAttributes } from '../protocol/telemetry.js';

/** .ts in a checkout (bundled through swc), .js in the built package. */
const EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const WORKFLOW_TRACING_MODULE = fileURLToPath(
  new URL(`../workflows/tracing-interceptors${EXTENSION}`, import.meta.url),
);

/**
 * For clients (`new Client({ plugins })`), workers (`Worker.create({ plugins })`) and prebuilt
 * bundles (`bundleAgents(agents, { plugins })`) alike. Order matters: Temporal's interceptors come
 * first, so that their spans are active when this project's interceptors run.
 */
export function temporalTracingPlugins(resource: Resource, spanProcessor: SpanProcessor): SimplePlugin[] {
  return [
    new OpenTelemetryPlugin({ resource, spanProcessor }),
    new SimplePlugin({
      name: 'a2a-temporal.tracing',
      workerInterceptors: { activity: [activitySpanAttributes], workflowModules: [WORKFLOW_TRACING_MODULE] },
    }),
  ];
}

const activitySpanAttributes: ActivityInterceptorsFactory = (context) => ({
  inbound: {
    execute(input, next) {
      const { workflowExecution, workflowType } = context.info;
      const sentContextId = input.headers[CONTEXT_ID_HEADER];
      const contextId = sentContextId && defaultPayloadConverter.fromPayload<string>(sentContextId);
      if (workflowExecution && workflowType) {
        trace
          .getActiveSpan()
          ?.setAttributes(
            taskSpanAttributes({ workflowId: workflowExecution.workflowId, agent: workflowType, contextId }),
          );
      }
      return next(input);
    },
  },
});
