/**
 * A real gateway (HTTP + gRPC on ephemeral ports) in front of the run's Temporal dev server and a
 * test worker, plus SDK clients for each transport.
 */
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { ClientFactory, ClientFactoryOptions, type Client as A2AClient } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { Message } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import agents from '../../examples/agents/index.js';
import { startGateway, type RunningGateway } from '../../src/gateway/server.js';
import { blockingAgent, extendedCardAgent } from '../agents/test-agents.js';
import { startTestWorker, type TestWorker } from '../support/worker.js';

export type Transport = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface Harness {
  gateway: RunningGateway;
  temporal: TemporalClient;
  worker: TestWorker;
  /** An SDK client for `agent` that prefers `transport`. */
  a2a(transport: Transport, agent?: string): Promise<A2AClient>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const worker = await startTestWorker();
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const temporal = new TemporalClient({ connection, namespace: 'default' });
  const gateway = await startGateway({
    client: temporal,
    agents: [...agents, blockingAgent, extendedCardAgent],
    taskQueue: worker.taskQueue,
    keepaliveMs: 200,
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
