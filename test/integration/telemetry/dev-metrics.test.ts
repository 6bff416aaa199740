/**
 * `a2a-temporal dev` (what `npm start` runs) serves both metrics endpoints by default and says where
 * in its banner, along with where traces go (nowhere, until OTEL_* says so); and its Temporal dev
 * server is not bothered by the OTEL_* settings meant for the product.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startDevStack, type RunningDevStack } from '../../../src/dev/dev-stack.js';
import { freePort, startDevServer } from '../../../src/temporal/dev-server.js';
import { rpc, taskOf, userMessage } from '../../support/product-processes.js';
import { readSettings } from '../../../src/config/settings.js';

let stack: RunningDevStack | undefined;

afterAll(async () => {
  await stack?.stop();
});

describe('dev', () => {
  it('prints where the metrics are, and serves them', async () => {
    let printed = '';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      A2A_TASK_QUEUE: `test-dev-metrics-${randomUUID()}`,
      PORT: String(await freePort()),
      GRPC_PORT: 'off',
    };
    for (const name of [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_TRACES_EXPORTER',
      'A2A_METRICS_PORT',
      'A2A_WORKER_METRICS_PORT',
    ]) {
      delete env[name];
    }
    stack = await startDevStack({
      config: 'examples',
      env,
      settings: readSettings(env),
      print: (text) => (printed += text),
    });

    const [, gateway, worker] = /Metrics \(Prometheus\): gateway (\S+) {3}worker (\S+)/.exec(printed) ?? [];
    expect(gateway, printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(worker, printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(printed).toContain('Traces: off (set OTEL_EXPORTER_OTLP_ENDPOINT');

    const task = taskOf(
      await rpc(`${stack.ready.gatewayUrl}/agents/echo`, 'SendMessage', { message: userMessage([{ text: 'hi' }]) }),
    );
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const gatewayText = await (await fetch(gateway!)).text();
    expect(gatewayText).toMatch(
      /^a2a_gateway_requests_total\{method="SendMessage",transport="jsonrpc",agent="echo",outcome="ok"\} 1$/m,
    );
    expect(gatewayText).toMatch(/^a2a_approvals_waiting\{agent="expense-approval"\} 0$/m);
    const workerText = await (await fetch(worker!)).text();
    expect(workerText).toMatch(/^a2a_tasks_settled_total\{.*agent="echo".*state="completed".*\} 1$/m);
    expect(workerText).toMatch(/^temporal_workflow_completed_total\{.*workflow_type="echo".*\} 1$/m);
  });

  it('starts its Temporal dev server whatever OTEL_* says', async () => {
    process.env.OTEL_TRACES_EXPORTER = 'console'; // which the Temporal server refuses
    try {
      const server = await startDevServer();
      await server.stop();
    } finally {
      delete process.env.OTEL_TRACES_EXPORTER;
    }
  });
});
