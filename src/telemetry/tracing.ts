/**
 * OpenTelemetry tracing, set up here and nowhere else: the CLI's server processes call
 * startTracing once at start, and whatever builds a Temporal client or worker asks
 * tracingPlugins() for the plugins that carry the trace through Temporal.
 *
 * Off unless the standard variables ask for it: OTEL_TRACES_EXPORTER=otlp (or console), or an OTLP
 * endpoint in OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_SDK_DISABLED=true
 * and OTEL_TRACES_EXPORTER=none turn it off. Off costs nothing: no tracer provider is registered (the
 * OpenTelemetry API stays a no-op), no Temporal interceptors are installed, fetch is not instrumented.
 *
 * On: W3C trace context in and out, spans batched to OTLP over HTTP (http/protobuf: the exporter
 * reads OTEL_EXPORTER_OTLP_* itself), service.name per process unless OTEL_SERVICE_NAME says
 * otherwise, OTEL_RESOURCE_ATTRIBUTES and OTEL_TRACES_SAMPLER as the SDK reads them. Outgoing fetch
 * calls (model calls in activities) carry the trace on; push notifications carry it themselves
 * (src/package-activities/push.ts).
 */
import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import type { SimplePlugin } from '@temporalio/plugin';
import { temporalTracingPlugins } from './temporal-tracing.js';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

export type TracesExporter = 'otlp' | 'console';

/** The variables that say whether spans are exported, and where (the exporter reads the rest of OTEL_EXPORTER_OTLP_* itself). */
export type TracingSettings = Pick<
  Settings,
  | 'OTEL_SDK_DISABLED'
  | 'OTEL_TRACES_EXPORTER'
  | 'OTEL_EXPORTER_OTLP_PROTOCOL'
  | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
>;

/** The only OTLP protocol this build exports with. */
const OTLP_PROTOCOL = 'http/protobuf';

/** Which exporter the environment asks for; undefined when tracing is off. */
export function tracesExporterFromEnv(env: TracingSettings): TracesExporter | undefined {
  if (env.OTEL_SDK_DISABLED) return undefined;
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = named.filter((name) => !['otlp', 'console', 'none'].includes(name));
  if (unknown.length > 0)
    throw new ConfigError(`OTEL_TRACES_EXPORTER=${unknown.join(',')} is not supported: use otlp, console or none`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== OTLP_PROTOCOL) {
    throw new ConfigError(`OTLP protocol ${protocol} is not supported: traces go over ${OTLP_PROTOCOL} (port 4318)`);
  }
  if (named.includes('none')) return undefined;
  if (named.includes('otlp')) return 'otlp';
  if (named.includes('console')) return 'console';
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT ? 'otlp' : undefined;
}

/** Where the environment sends spans, for a person to read (the dev banner); undefined when tracing is off. */
export function tracesDestination(env: TracingSettings): string | undefined {
  const exporter = tracesExporterFromEnv(env);
  if (exporter !== 'otlp') return exporter && 'the console';
  const base = withoutTrailingSlashes(env.OTEL_EXPORTER_OTLP_ENDPOINT || 'http://localhost:4318');
  return `OTLP ${env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${base}/v1/traces`}`;
}

/** How {@link startTracing} names this process's spans, and where they go. */
export interface TracingOptions {
  /** `service.name` of this process's spans, unless OTEL_SERVICE_NAME names another. */
  serviceName: string;
  /** Where spans go instead of the exporter the environment names (tests: an in-memory exporter). */
  spanProcessor?: SpanProcessor;
  /** The OTEL_* variables (`readSettings()`); none: no exporter, only `spanProcessor`'s spans. */
  settings?: TracingSettings;
}

interface ActiveTracing {
  provider: NodeTracerProvider;
  plugins: SimplePlugin[];
  stopInstrumentation: () => void;
}

let active: ActiveTracing | undefined;

/**
 * Starts tracing when the environment (or `spanProcessor`) asks for it, and says whether it did.
 * Once per process, before any Temporal client, worker or gateway is built.
 */
export function startTracing(options: TracingOptions): boolean {
  if (active) throw new Error('Tracing has already started in this process');
  const exporter = options.settings && tracesExporterFromEnv(options.settings);
  if (!options.spanProcessor && !exporter) return false;
  const spanProcessor =
    options.spanProcessor ??
    new BatchSpanProcessor(exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter());
  const resource = new Resource({
    ...Resource.default().attributes,
    'service.name': options.serviceName,
    ...envDetectorSync.detect().attributes,
  });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  active = {
    provider,
    plugins: temporalTracingPlugins(resource, spanProcessor),
    // Fetch calls outside any trace (a JWKS refresh, a health probe) start no trace of their own.
    stopInstrumentation: registerInstrumentations({
      instrumentations: [new UndiciInstrumentation({ requireParentforSpans: true })],
    }),
  };
  return true;
}

/** Temporal client, worker and bundler plugins that carry the trace through Temporal; none while tracing is off. */
export function tracingPlugins(): SimplePlugin[] {
  return active?.plugins ?? [];
}

/** The tracer of the gateway's request spans; undefined while tracing is off. */
export function gatewayTracer(): Tracer | undefined {
  return active && trace.getTracer('a2a-temporal.gateway');
}

/** Sends the spans still buffered and stops tracing (at process exit). */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  if (!stopping) return;
  stopping.stopInstrumentation();
  await stopping.provider.shutdown();
}
