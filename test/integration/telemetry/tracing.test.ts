/**
 * Tracing end to end, in-process: a real gateway and worker on the run's Temporal dev server, with
 * tracing started as the CLI starts it but spans kept in memory. One approval round trip is one
 * trace from the gateway's request through the workflow to its activity; the reply is a trace of
 * its own, linked to the task's; every transport continues the caller's `traceparent`; a model call
 * carries the trace to the model server, and a push notification to the webhook.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import testAgents from '../../support/agents/index.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/server.js';
import { SPAN_ATTRIBUTES } from '../../../src/protocol/telemetry.js';
import { startTracing, stopTracing, tracingPlugins } from '../../../src/telemetry/tracing.js';
import { bundleAgents } from '../../../src/worker/agents-bundle.js';
import { createAgentWorker } from '../../../src/worker/create-worker.js';
import { startFakeModelServer, type FakeModelServer } from '../../../src/testing/fake-model-server.js';
import { Webhook } from '../../support/webhook.js';
import { quietLogger, TEST_ACTIVITIES, TEST_AGENTS_MODULE } from '../../support/worker.js';
import { readSettings } from '../../../src/config/settings.js';
import { pushUrlPolicyFromEnv } from '../../../src/push/url-policy.js';

const exporter = new InMemorySpanExporter();
const taskQueue = `test-tracing-${randomUUID()}`;
let model: FakeModelServer;
const webhook = new Webhook();
let hookUrl: string;
let nativeConnection: NativeConnection;
let worker: Worker;
let workerRun: Promise<void>;
let connection: Connection;
let gateway: RunningGateway;

beforeAll(async () => {
  // As the CLI's server processes do, before any client or worker is built.
  expect(startTracing({ serviceName: 'a2a-temporal-test', spanProcessor: new SimpleSpanProcessor(exporter) })).toBe(
    true,
  );
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // Both the gateway (when a config is saved) and the worker (when it delivers) take it.
  const settings = readSettings({ A2A_PUSH_ALLOWED_HOSTS: '127.0.0.1' });
  hookUrl = await webhook.start();
  model = await startFakeModelServer();
  nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue,
    agents: TEST_AGENTS_MODULE,
    activities: TEST_ACTIVITIES,
    model: { baseURL: model.url, model: 'fake-model' },
    workflowBundle: await bundleAgents(TEST_AGENTS_MODULE, { plugins: tracingPlugins(), logger: quietLogger }),
    settings,
  });
  workerRun = worker.run();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, plugins: tracingPlugins() });
  gateway = await startGateway({
    client,
    agents: testAgents,
    taskQueue,
    grpcPort: 0,
    pushUrlPolicy: pushUrlPolicyFromEnv(settings),
  });
});

afterAll(async () => {
  await gateway?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await workerRun;
  await connection?.close();
  await nativeConnection?.close();
  await model?.close();
  await webhook.close();
  await stopTracing();
});

describe('tracing', () => {
  it('follows an approval from the request through the workflow to its activity, and links the reply to it', async () => {
    const caller = traceparent();
    const asked = await jsonRpc('expense-approval', sendMessage('Please approve an expense of 120 USD for lunch'), {
      traceparent: caller.header,
    });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const taskId: string = asked.id;
    const done = await jsonRpc('expense-approval', sendMessage('approve', { taskId, contextId: asked.contextId }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');

    // The workflow's own span ends (and is exported) once the workflow has closed.
    const spans = await spansUntil((all) => all.some((span) => span.name === 'RunWorkflow:expense-approval'));
    const task = spans.filter((span) => span.spanContext().traceId === caller.traceId);
    console.log(`The task's trace:\n${describeTrace(task)}`);

    const request = only(task, 'A2A SendMessage');
    expect(request.parentSpanId).toBe(caller.spanId);
    expect(request.attributes).toMatchObject({
      [SPAN_ATTRIBUTES.method]: 'SendMessage',
      [SPAN_ATTRIBUTES.transport]: 'jsonrpc',
      [SPAN_ATTRIBUTES.agent]: 'expense-approval',
      [SPAN_ATTRIBUTES.taskId]: taskId,
      [SPAN_ATTRIBUTES.contextId]: asked.contextId,
      [SPAN_ATTRIBUTES.outcome]: 'ok',
    });
    const start = only(task, 'UpdateWithStartWorkflow:message');
    expect(start.parentSpanId).toBe(request.spanContext().spanId);
    const run = only(task, 'RunWorkflow:expense-approval');
    expect(run.parentSpanId).toBe(start.spanContext().spanId);
    expect(run.attributes).toMatchObject({
      [SPAN_ATTRIBUTES.taskId]: taskId,
      [SPAN_ATTRIBUTES.contextId]: asked.contextId,
      [SPAN_ATTRIBUTES.agent]: 'expense-approval',
    });
    const scheduled = only(task, 'StartActivity:assessExpense');
    const activity = only(task, 'RunActivity:assessExpense');
    expect(activity.parentSpanId).toBe(scheduled.spanContext().spanId);
    expect(activity.attributes).toMatchObject({
      [SPAN_ATTRIBUTES.taskId]: taskId,
      [SPAN_ATTRIBUTES.contextId]: asked.contextId,
      [SPAN_ATTRIBUTES.agent]: 'expense-approval',
    });

    // The reply: its own request, its own trace, linked to the task's where the workflow takes it.
    const reply = spans.find(
      (span) =>
        span.name === 'A2A SendMessage' &&
        span.attributes[SPAN_ATTRIBUTES.taskId] === taskId &&
        span.spanContext().traceId !== caller.traceId,
    )!;
    expect(reply).toBeDefined();
    const replyTrace = spans.filter((span) => span.spanContext().traceId === reply.spanContext().traceId);
    console.log(`The reply's trace:\n${describeTrace(replyTrace)}`);
    const handled = replyTrace.find((span) => span.name === 'HandleUpdate:message')!;
    expect(handled.attributes).toMatchObject({ [SPAN_ATTRIBUTES.taskId]: taskId });
    expect(handled.links.map((link) => link.context.traceId)).toEqual([caller.traceId]);
  });

  it('continues the caller’s traceparent on HTTP+JSON and gRPC too', async () => {
    const task = await jsonRpc('echo', sendMessage('hello'));
    const rest = traceparent();
    const response = await fetch(`${gateway.url}/agents/echo/rest/tasks/${task.id}`, {
      headers: { traceparent: rest.header, 'A2A-Version': '1.0' },
    });
    expect(response.status).toBe(200);
    const overGrpc = traceparent();
    await grpcGetTask('echo', task.id, overGrpc.header);

    const spans = await spansUntil((all) =>
      [rest, overGrpc].every((caller) => all.some((span) => span.spanContext().traceId === caller.traceId)),
    );
    for (const [caller, transport] of [
      [rest, 'rest'],
      [overGrpc, 'grpc'],
    ] as const) {
      const span = only(
        spans.filter((s) => s.spanContext().traceId === caller.traceId),
        'A2A GetTask',
      );
      expect(span.parentSpanId).toBe(caller.spanId);
      expect(span.attributes).toMatchObject({
        [SPAN_ATTRIBUTES.transport]: transport,
        [SPAN_ATTRIBUTES.agent]: 'echo',
        [SPAN_ATTRIBUTES.taskId]: task.id,
        [SPAN_ATTRIBUTES.outcome]: 'ok',
      });
    }
  });

  it('carries the trace on to the model server with a model call', async () => {
    model.script({ text: 'Nothing to buy today.' });
    const caller = traceparent();
    const done = await jsonRpc('test-llm', sendMessage('Anything?'), { traceparent: caller.header });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const sent = model.requests.at(-1)!.headers.traceparent as string;
    expect(sent.split('-')[1]).toBe(caller.traceId);

    const spans = await spansUntil((all) =>
      all.some((span) => span.spanContext().traceId === caller.traceId && span.name === 'RunWorkflow:test-llm'),
    );
    const task = spans.filter((span) => span.spanContext().traceId === caller.traceId);
    console.log(`An LLM task's trace:\n${describeTrace(task)}`);
    const modelCall = only(task, 'RunActivity:a2aTemporalModelCall');
    const http = task.find((span) => span.parentSpanId === modelCall.spanContext().spanId && span.name === 'POST')!;
    expect(http).toBeDefined();
    expect(sent.split('-')[2]).toBe(http.spanContext().spanId);
    // The call's usage as the OpenTelemetry GenAI semantic conventions name it, as the model reported it.
    const usage = model.requests.at(-1)!.usage!;
    expect(modelCall.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.usage.input_tokens': usage.prompt_tokens,
      'gen_ai.usage.output_tokens': usage.completion_tokens,
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });

  it('carries the trace on to the webhook with a push notification', async () => {
    const caller = traceparent();
    const pushConfig = { tenant: '', taskId: '', id: 'traced', url: hookUrl, token: '' };
    const task = await jsonRpc(
      'echo',
      { ...sendMessage('hello'), configuration: { taskPushNotificationConfig: pushConfig } },
      { traceparent: caller.header },
    );
    const deadline = Date.now() + 20_000;
    while (webhook.forTask(task.id).length === 0 && Date.now() < deadline) await sleep(100);
    expect(webhook.forTask(task.id), 'a notification within 20 s').not.toHaveLength(0);
    const sent = webhook.forTask(task.id)[0]!.headers.traceparent as string;
    expect(sent.split('-')[1]).toBe(caller.traceId);

    const spans = await spansUntil((all) =>
      all.some((span) => span.spanContext().spanId === sent.split('-')[2] && span.name === 'POST'),
    );
    const trace = spans.filter((span) => span.spanContext().traceId === caller.traceId);
    console.log(`A notified task's trace:\n${describeTrace(trace)}`);
    const post = trace.find((span) => span.spanContext().spanId === sent.split('-')[2])!;
    expect(post.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    const delivery = trace.find((span) => span.spanContext().spanId === post.parentSpanId)!;
    expect(delivery.name).toBe('RunActivity:a2aDeliverPushNotification');
  });
});

// ---------------------------------------------------------------------------------------------

/** A caller's span context, as a traced A2A client sends it. */
function traceparent() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
}

function sendMessage(text: string, ids: { taskId?: string; contextId?: string } = {}) {
  return { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...ids } };
}

async function jsonRpc(agent: string, params: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(`${gateway.url}/agents/${agent}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  });
  const body = (await response.json()) as any;
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result.task;
}

function grpcGetTask(tenant: string, id: string, header: string): Promise<void> {
  const client = new grpc.Client(gateway.grpcAddress!, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('traceparent', header);
  metadata.set('a2a-version', '1.0');
  const method = A2AService.getTask;
  return new Promise<void>((resolve, reject) =>
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      { tenant, id },
      metadata,
      (error) => (error ? reject(error) : resolve()),
    ),
  ).finally(() => client.close());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function spansUntil(done: (spans: ReadableSpan[]) => boolean, timeoutMs = 20_000): Promise<ReadableSpan[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const spans = exporter.getFinishedSpans();
    if (done(spans) || Date.now() > deadline) return spans;
    await sleep(100);
  }
}

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const named = spans.filter((span) => span.name === name);
  expect(
    named.map((span) => span.name),
    `exactly one ${name} in ${spans.map((s) => s.name).join(', ')}`,
  ).toEqual([name]);
  return named[0]!;
}

/** The spans as a tree, with their A2A attributes: what the test output shows of a trace. */
function describeTrace(spans: ReadableSpan[]): string {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const children = spans
      .filter((span) => (parent === undefined ? !ids.has(span.parentSpanId ?? '') : span.parentSpanId === parent))
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    for (const span of children) {
      const a2a = Object.entries(span.attributes).filter(([key]) => key.startsWith('a2a.'));
      const links = span.links.map((link) => `link→${link.context.traceId.slice(0, 8)}`);
      lines.push(
        `${'  '.repeat(depth)}${span.name} ${a2a.map(([k, v]) => `${k}=${String(v)}`).join(' ')} ${links.join(' ')}`,
      );
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}
