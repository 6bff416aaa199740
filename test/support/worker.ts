/**
 * A worker for tests: the workflow bundle is built once per test process, and each call starts a
 * worker on its own task queue against the run's dev server.
 */
import { Client, Connection } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import * as exampleActivities from '../../examples/activities/index.js';
import type { ModelSettings } from '../../src/llm/model-settings.js';
import { agentsPlugin, type ApprovalSettings } from '../../src/worker/agents-plugin.js';
import { bundleAgents } from '../../src/worker/agents-bundle.js';
import * as testActivities from './test-activities.js';
import type { Settings } from '../../src/config/settings.js';

/** The tests' agents module: the example agents and the test agents. */
export const TEST_AGENTS_MODULE = fileURLToPath(new URL('./agents/index.ts', import.meta.url));
export const TEST_ACTIVITIES = { ...exampleActivities, ...testActivities };

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
let runtimeInstalled = false;

export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleAgents(TEST_AGENTS_MODULE, { logger: quietLogger });
  return bundle;
}

export interface TestWorker {
  taskQueue: string;
  worker: Worker;
  shutdown(): Promise<void>;
}

export async function startTestWorker(
  taskQueue = `test-${randomUUID()}`,
  options: {
    model?: ModelSettings;
    /** The worker's environment (push hosts and signing key, ...); default: every setting's default. */
    settings?: Settings;
    reuseV8Context?: boolean;
    approvals?: ApprovalSettings;
    workflowBundle?: WorkflowBundleWithSourceMap;
    /** Another agents module than the tests' (pass its `workflowBundle` too). */
    agents?: string;
    /** How long in-flight activities may finish once shutdown starts (Temporal's default: 0, they are canceled). */
    shutdownGraceTime?: Duration;
  } = {},
): Promise<TestWorker> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle: options.workflowBundle ?? (await workflowBundle()),
    ...(options.reuseV8Context !== undefined && { reuseV8Context: options.reuseV8Context }),
    ...(options.shutdownGraceTime !== undefined && { shutdownGraceTime: options.shutdownGraceTime }),
    plugins: [
      agentsPlugin({
        agents: options.agents ?? TEST_AGENTS_MODULE,
        activities: TEST_ACTIVITIES,
        ...(options.model && { model: options.model }),
        ...(options.approvals && { approvals: options.approvals }),
        ...(options.settings && { settings: options.settings }),
      }),
    ],
  });
  const running = worker.run();
  let stopped: Promise<void> | undefined;
  return {
    taskQueue,
    worker,
    // Once: a test may stop the worker (a restart) before its harness closes.
    shutdown() {
      stopped ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
      })();
      return stopped;
    },
  };
}

export async function testClient(): Promise<Client> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  return new Client({ connection, namespace: 'default' });
}

/** A bundler logger that keeps webpack's progress out of test output. */
export const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
