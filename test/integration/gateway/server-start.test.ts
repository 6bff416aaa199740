/** A gateway whose build fails leaves no port bound: it builds before it listens. */
import { createServer } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { serveGateway } from '../../../src/gateway/server.js';
import { defineAgent } from '../../../src/index.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

describe('serveGateway', () => {
  it('closes its HTTP, gRPC and metrics listeners when the gateway cannot be built', async () => {
    const [port, grpcPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
    // Never dialled: the build fails before any Temporal call.
    const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const agent = defineAgent({ name: 'echo', description: 'Echoes', skills: [], async run() {} });
    await expect(
      serveGateway({ client, agents: [agent], defaultAgent: 'missing', port, grpcPort, metricsPort }),
    ).rejects.toThrow('Default agent "missing" is not among the served agents');
    expect([await canListen(port), await canListen(grpcPort), await canListen(metricsPort)]).toEqual([
      true,
      true,
      true,
    ]);
  });
});
