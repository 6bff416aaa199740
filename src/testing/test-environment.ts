/**
 * A project's agents on a real Temporal dev server, for tests: the worker (agents bundled once per
 * process) and the gateway on free ports, plus a small A2A JSON-RPC client for each agent.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../config/load-config.js';
import { modelSettingsFromEnv, type ModelSettings } from '../llm/model-settings.js';
import { startGateway } from '../gateway/server.js';
import type { JsonObject, WirePart, WireTask } from '../protocol/wire.js';
import { tracingPlugins } from '../telemetry/tracing.js';
import { startDevServer, type DevServer } from '../temporal/dev-server.js';
import { agentsPlugin } from '../worker/agents-plugin.js';
import { bundleAgents } from '../worker/agents-bundle.js';
import { quietLogs } from './test-logs.js';
import { readSettings } from '../config/settings.js';

/** Which project {@link startTestEnvironment} runs, and on which Temporal server. */
export interface TestEnvironmentOptions {
  /** Config file, or a folder holding one. Default: the current folder. */
  config?: string;
  /** A running Temporal server to use (its `default` namespace). Default: env TEMPORAL_ADDRESS, else an in-memory dev server of its own. */
  temporalAddress?: string;
  /**
   * What LLM agents talk to, over the worker's: the A2A_MODEL_* environment and the config's
   * `modelProviders`. A fake model: `{ baseURL: fake.url, model: 'fake-model' }` (startFakeModelServer).
   */
  model?: ModelSettings;
}

/** What a test sends: text, structured data, or both. */
export interface TestMessage {
  /** A text part. */
  text?: string;
  /** A DataPart's value. */
  data?: unknown;
  /** The context (conversation) to send it in; default a new one, or the task's for a reply. */
  contextId?: string;
  /** The message's metadata, e.g. `{ responder: 'alice' }` to say who answers. */
  metadata?: JsonObject;
}

/** One agent, over A2A JSON-RPC (v1.0) through the real gateway. Each call blocks until the task settles. */
export interface AgentTestClient {
  /** The agent's JSON-RPC endpoint; its card is at `${url}/.well-known/agent-card.json`. */
  readonly url: string;
  /** SendMessage: a new task. */
  send(message: string | TestMessage): Promise<WireTask>;
  /** SendMessage on a task: answers its pending question. */
  reply(taskId: string, message: string | TestMessage): Promise<WireTask>;
  /** GetTask. */
  get(taskId: string): Promise<WireTask>;
  /** CancelTask. */
  cancel(taskId: string): Promise<WireTask>;
}

/** A project's agents running for a test: see {@link startTestEnvironment}. */
export interface TestEnvironment {
  /** A Temporal client on the environment's server, e.g. to inspect a task's workflow. */
  readonly temporal: Client;
  /** `host:port` of the Temporal server the environment uses. */
  readonly temporalAddress: string;
  /** This environment's own task queue. */
  readonly taskQueue: string;
  /** The gateway's base URL: agents are at `<gatewayUrl>/agents/<name>`. */
  readonly gatewayUrl: string;
  /** A client of one of the config's agents. */
  agent(name: string): AgentTestClient;
  /** Stops the gateway, the worker and the dev server it started (call it in `afterAll`). */
  stop(): Promise<void>;
}

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Runs a project's agents for a test: a Temporal dev server (or `TEMPORAL_ADDRESS`), a worker with the
 * config's agents and activities, and the gateway, on free ports; agents are reached over A2A JSON-RPC.
 *
 * @example
 * import { afterAll, beforeAll, expect, it } from 'vitest';
 * import { startTestEnvironment, stateOf, type TestEnvironment } from 'a2a-temporal/testing';
 *
 * let env: TestEnvironment;
 * beforeAll(async () => (env = await startTestEnvironment()), 120_000);
 * afterAll(() => env?.stop());
 *
 * it('asks before it buys', async () => {
 *   const agent = env.agent('purchase-approval');
 *   const task = await agent.send('Buy 3 monitors for 450 EUR');
 *   expect(stateOf(task)).toBe('input-required');
 *   expect(stateOf(await agent.reply(task.id, 'approve'))).toBe('completed');
 * });
 */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  // The test process's environment, read once: the worker and gateway run as the project's would.
  const settings = readSettings(process.env);
  quietLogs(settings);
  const config = await loadConfig(options.config);
  // The config's approval defaults are part of the workflow code (src/worker/agents-bundle.ts): a bundle per defaults.
  const { notify, remind } = config.approvals ?? {};
  const defaults = { ...(notify && { notify }), ...(remind && { remind }) };
  const bundleKey = `${config.agentsModule}\n${JSON.stringify(defaults)}`;
  let bundle = bundles.get(bundleKey);
  if (!bundle) {
    const bundleOptions = { logger: new DefaultLogger('WARN'), plugins: tracingPlugins() };
    bundle = bundleAgents(config.agentsModule, bundleOptions, defaults);
    bundles.set(bundleKey, bundle);
  }
  const address = options.temporalAddress ?? settings.TEMPORAL_ADDRESS;
  const devServer: DevServer | undefined = address ? undefined : await startDevServer();
  const temporalAddress = address ?? devServer!.address;
  const taskQueue = `test-${randomUUID()}`;

  const nativeConnection = await NativeConnection.connect({ address: temporalAddress });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: await bundle,
    plugins: [
      ...tracingPlugins(),
      agentsPlugin({
        agents: config.agentsModule,
        activities: await config.loadActivities(),
        model: { ...modelSettingsFromEnv(settings), providers: await config.loadModelProviders(), ...options.model },
        // Questions reach their approvers as on the project's own worker (channels from the A2A_* environment).
        ...(config.approvals && { approvals: config.approvals }),
        settings,
      }),
    ],
  });
  const workerRun = worker.run();
  const connection = await Connection.connect({ address: temporalAddress });
  const temporal = new Client({ connection, plugins: tracingPlugins() });
  const gateway = await startGateway({
    client: temporal,
    agents: config.agents,
    ...(config.defaultAgent && { defaultAgent: config.defaultAgent }),
    taskQueue,
    grpcPort: false,
  });

  return {
    temporal,
    temporalAddress,
    taskQueue,
    gatewayUrl: gateway.url,
    agent(name) {
      if (!config.agents.some((agent) => agent.name === name)) {
        throw new Error(
          `No agent "${name}" in ${config.file} (agents: ${config.agents.map((a) => a.name).join(', ')})`,
        );
      }
      return agentTestClient(`${gateway.url}/agents/${name}`);
    },
    async stop() {
      await gateway.close();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await workerRun;
      await connection.close();
      await nativeConnection.close();
      await devServer?.stop();
    },
  };
}

function agentTestClient(url: string): AgentTestClient {
  const send = (message: string | TestMessage, taskId?: string) =>
    rpc(url, 'SendMessage', { message: userMessage(message, taskId) }).then(
      (result) => (result as { task?: WireTask }).task ?? unexpected('SendMessage', result),
    );
  return {
    url,
    send: (message) => send(message),
    reply: (taskId, message) => send(message, taskId),
    get: (taskId) => rpc(url, 'GetTask', { id: taskId }) as Promise<WireTask>,
    cancel: (taskId) => rpc(url, 'CancelTask', { id: taskId }) as Promise<WireTask>,
  };
}

function userMessage(input: string | TestMessage, taskId: string | undefined) {
  const message = typeof input === 'string' ? { text: input } : input;
  const parts: WirePart[] = [
    ...(message.text !== undefined ? [{ text: message.text }] : []),
    ...(message.data !== undefined ? [{ data: message.data }] : []),
  ];
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(taskId && { taskId }),
    ...(message.contextId && { contextId: message.contextId }),
    ...(message.metadata && { metadata: message.metadata }),
  };
}

async function rpc(url: string, method: string, params: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  if (body.error) throw new Error(`${method} failed: A2A error ${body.error.code}: ${body.error.message}`);
  return body.result;
}

function unexpected(method: string, result: unknown): never {
  throw new Error(`${method} answered without a task: ${JSON.stringify(result)}`);
}
