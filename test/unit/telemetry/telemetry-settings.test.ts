/** Which OTEL_* and metrics settings turn what on, and that tracing off installs nothing at all. */
import { propagation, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { traceFields } from '../../../src/logging.js';
import { hostPort, metricsPortFromEnv, workerMetricsAddress } from '../../../src/telemetry/metrics-settings.js';
import { gatewayTracer, startTracing, tracesExporterFromEnv, tracingPlugins } from '../../../src/telemetry/tracing.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { readSettings } from '../../../src/config/settings.js';

describe('tracesExporterFromEnv', () => {
  it.each([
    [{}, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'otlp'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, 'otlp'],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, 'otlp'],
    [{ OTEL_TRACES_EXPORTER: 'console' }, 'console'],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, undefined],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, 'otlp'],
  ])('%j: %s', (env, exporter) => {
    expect(tracesExporterFromEnv(readSettings(env))).toBe(exporter);
  });

  it('refuses exporters and protocols it cannot serve, rather than dropping spans', () => {
    expect(() => tracesExporterFromEnv(readSettings({ OTEL_TRACES_EXPORTER: 'zipkin' }))).toThrow(ConfigError);
    expect(() =>
      tracesExporterFromEnv(
        readSettings({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        }),
      ),
    ).toThrow(/grpc is not supported: traces go over http\/protobuf/);
  });
});

describe('startTracing with nothing configured', () => {
  it('installs nothing: no provider, no propagator, no plugins, no tracer, no trace in logs', () => {
    const otel = Object.keys(process.env).filter((name) => name.startsWith('OTEL_'));
    expect(otel, 'this test needs an environment without OTEL_* variables').toEqual([]);
    expect(startTracing({ serviceName: 'test' })).toBe(false);
    expect(tracingPlugins()).toEqual([]);
    expect(gatewayTracer()).toBeUndefined();
    expect(propagation.fields()).toEqual([]);
    trace.getTracer('test').startActiveSpan('nothing', (span) => {
      expect(span.isRecording()).toBe(false);
      expect(traceFields()).toEqual({});
      span.end();
    });
  });
});

describe('metrics settings', () => {
  it('reads the ports, "off" and nothing alike', () => {
    expect(metricsPortFromEnv(readSettings({ A2A_METRICS_PORT: '9464' }), 'A2A_METRICS_PORT')).toBe(9464);
    expect(metricsPortFromEnv(readSettings({ A2A_METRICS_PORT: 'off' }), 'A2A_METRICS_PORT')).toBeUndefined();
    expect(metricsPortFromEnv(readSettings({}), 'A2A_METRICS_PORT')).toBeUndefined();
    expect(() => metricsPortFromEnv(readSettings({ A2A_METRICS_PORT: 'ninety' }), 'A2A_METRICS_PORT')).toThrow(
      ConfigError,
    );
  });

  it('serves the worker’s endpoint on every interface in production, on HOST when set', async () => {
    expect(await workerMetricsAddress(readSettings({}), 'production')).toBeUndefined();
    expect(await workerMetricsAddress(readSettings({ A2A_WORKER_METRICS_PORT: '9465' }), 'production')).toBe(
      '0.0.0.0:9465',
    );
    expect(
      await workerMetricsAddress(readSettings({ A2A_WORKER_METRICS_PORT: '9465', HOST: '::1' }), 'production'),
    ).toBe('[::1]:9465');
    expect(await workerMetricsAddress(readSettings({ A2A_WORKER_METRICS_PORT: 'off' }), 'development')).toBeUndefined();
    expect(await workerMetricsAddress(readSettings({}), 'development')).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(hostPort('10.0.0.1', 80)).toBe('10.0.0.1:80');
  });
});
