/** Logs, Prometheus endpoints and OpenTelemetry traces (see [Observability](observability.md)). */
import { flag, group, oneOf, portOrOff, setting, text } from '../setting.js';

export const OBSERVABILITY_SETTINGS = group('observability', {
  LOG_LEVEL: setting({
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    defaultText: '`info`',
    description: 'The lowest level logged.',
  }),
  LOG_FORMAT: setting({
    parse: oneOf(['json', 'pretty']),
    defaultText: 'pretty on a terminal, else json',
    description: 'How log lines look.',
  }),
  TEMPORAL_LOG_LEVEL: setting({
    parse: oneOf(['trace', 'debug', 'info', 'warn', 'error']),
    default: 'warn',
    description: "The lowest level of the Temporal SDK's own logs that reaches the log.",
  }),
  A2A_METRICS_PORT: setting({
    parse: portOrOff,
    defaultText: 'off; `9464` under `dev`',
    description: "The gateway's Prometheus endpoint (`/metrics`), on HOST; `off` turns it off.",
  }),
  A2A_WORKER_METRICS_PORT: setting({
    parse: portOrOff,
    defaultText: 'off; `9465` under `dev`',
    description: "The worker's Prometheus endpoint (`/metrics`), on HOST; `off` turns it off.",
  }),
  OTEL_SDK_DISABLED: setting({ parse: flag, default: false, description: '`true` turns tracing off.' }),
  OTEL_TRACES_EXPORTER: setting({
    parse: text,
    defaultText: '`otlp` when an OTLP endpoint is set, else tracing off',
    description: '`otlp`, `console` or `none`.',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: setting({
    parse: text,
    defaultText: 'tracing off',
    description: 'The OTLP collector (http/protobuf, port 4318); setting it turns tracing on.',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting({
    parse: text,
    defaultText: '`$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces`',
    description: 'Where spans go, when not to the endpoint above.',
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: setting({
    parse: text,
    defaultText: '`http/protobuf`, the only one this build exports with',
    description: 'The OTLP protocol.',
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: setting({
    parse: text,
    defaultText: '`$OTEL_EXPORTER_OTLP_PROTOCOL`',
    description: 'The OTLP protocol of traces.',
  }),
  OTEL_EXPORTER_OTLP_HEADERS: setting({
    parse: text,
    secret: true,
    description: "Headers of the exporter's requests (`key=value,...`), as the OpenTelemetry SDK reads them.",
  }),
  OTEL_SERVICE_NAME: setting({
    parse: text,
    defaultText: '`a2a-temporal`, `a2a-temporal-worker`, `a2a-temporal-gateway`',
    description: "The spans' `service.name`.",
  }),
  OTEL_RESOURCE_ATTRIBUTES: setting({
    parse: text,
    description: "More attributes of the spans' resource (`key=value,...`), as the OpenTelemetry SDK reads them.",
  }),
  OTEL_TRACES_SAMPLER: setting({
    parse: text,
    defaultText: '`parentbased_always_on`',
    description: 'The sampler, as the OpenTelemetry SDK reads it.',
  }),
});
