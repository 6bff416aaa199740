/**
 * A real gateway (HTTP + gRPC on ephemeral ports) in front of the run's Temporal dev server and a
 * test worker, plus SDK clients for each transport. A test file takes one with `useGatewayHarness()`.
 */
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { Message } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import agents from '../../examples/agents/index.js';
import { serveGateway, type GatewayServerOptions, type ServedGateway } from '../../src/gateway/server.js';
import type { ModelSettings } from '../../src/llm/model-settings.js';
import type { ApprovalSettings } from '../../src/worker/agents-plugin.js';
import { blockingAgent, extendedCardAgent } from './agents/test-agents.js';
import { startTestWorker, type TestWorker } from './worker.js';
import type { Settings } from '../../src/config/settings.js';

export type Transport = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface Harness {
  gateway: ServedGateway;
  temporal: TemporalClient;
  worker: TestWorker;
  /** An SDK client for `agent` that prefers `transport`. */
  a2a(transport: Transport, agent?: string): Promise<A2AClient>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The worker's model (a fake model server's URL). */
  model?: ModelSettings;
  /** The worker's approver directory and channels. */
  approvals?: ApprovalSettings;
  /** The worker's environment; default: every setting's default. */
  settings?: Settings;
  /** The gateway's options beyond its client and task queue; default: the example and test agents, 200 ms keepalives. */
  gateway?: Partial<Omit<GatewayServerOptions, 'client' | 'taskQueue'>>;
}

/**
 * The file's harness: started before its tests (after the `beforeAll` hooks registered before this
 * call, which may set up what `options` reads), closed after them. Use it inside tests and hooks.
 */
export function useGatewayHarness(options: HarnessOptions | (() => HarnessOptions) = {}): Harness {
  let started: Harness | undefined;
  beforeAll(async () => {
    started = await startHarness(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): Harness => {
    if (!started) throw new Error('The gateway harness starts in beforeAll: use it inside tests and hooks');
    return started;
  };
  return {
    get gateway() {
      return current().gateway;
    },
    get temporal() {
      return current().temporal;
    },
    get worker() {
      return current().worker;
    },
    a2a: (transport, agent) => current().a2a(transport, agent),
    close: () => current().close(),
  };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const worker = await startTestWorker(undefined, {
    ...(options.model && { model: options.model }),
    ...(options.approvals && { approvals: options.approvals }),
    ...(options.settings && { settings: options.settings }),
  });
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const temporal = new TemporalClient({ connection, namespace: 'default' });
  const gateway = await serveGateway({
    agents: [...agents, blockingAgent, extendedCardAgent],
    keepaliveMs: 200,
    ...options.gateway,
    client: temporal,
    taskQueue: worker.taskQueue,
  });
  return {
    gateway,
    temporal,
    worker,
    async a2a(transport, agent = 'expense-approval') {
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [...ClientFactoryOptions.default.transports, new GrpcTransportFactory()],
        preferredTransports: [transport],
      });
      return new ClientFactory(options).createFromUrl(`${gateway.url}/agents/${agent}/`);
    },
    async close() {
      await gateway.close();
      await worker.shutdown();
      await connection.close();
    },
  };
}

export function userMessage(text: string, extra: { taskId?: string; contextId?: string; messageId?: string } = {}) {
  return Message.fromJSON({
    messageId: extra.messageId ?? randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...extra,
  });
}

export const EXPENSE_REQUEST = 'Please approve an expense of 120 USD for a team lunch';
