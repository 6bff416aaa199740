/** Unexpected failures leave the gateway as a generic message with a reference that is in the log. */
import { describe, expect, it, vi } from 'vitest';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { logger } from '../../../../src/logging.js';
import { guardHandler } from '../../../../src/gateway/a2a/guarded-handler.js';
import { requestLifetime } from '../../../../src/gateway/http/sdk-compat/index.js';
import { TemporalHealth } from '../../../../src/gateway/monitoring/temporal-health.js';
import { createTemporalClient } from '../../../../src/tasks/temporal-client.js';

const SECRET = 'TypeError: cannot read x of undefined at /srv/app/secret.js:12';

function failingHandler(versions: string[] = ['1.0']): A2ARequestHandler {
  const fail = async (params: { id?: string }) => {
    if (params.id === 'missing') throw new TaskNotFoundError('Task missing not found');
    throw new Error(SECRET);
  };
  const card = {
    name: 'failing',
    capabilities: {},
    supportedInterfaces: versions.flatMap((protocolVersion) =>
      ['JSONRPC', 'HTTP+JSON'].map((protocolBinding) => ({ url: 'http://x', protocolBinding, protocolVersion })),
    ),
  };
  return { getAgentCard: async () => card, getTask: fail, sendMessage: fail } as unknown as A2ARequestHandler;
}

describe('an unexpected failure', () => {
  it('answers "Internal error (ref …)" on JSON-RPC and HTTP+JSON, never its own text; A2A errors pass', async () => {
    const { client } = createTemporalClient({ address: '127.0.0.1:1' }, 'default');
    const handler = guardHandler(failingHandler(), new TemporalHealth(client));
    const app = express();
    app.use('/rest', restHandler({ requestHandler: handler, userBuilder: async () => undefined as never }));
    app.use(
      '/',
      express.json(),
      jsonRpcHandler({ requestHandler: handler, userBuilder: async () => undefined as never }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const rpc = async (id: string) =>
        (await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
        }).then((response) => response.text())) as string;
      const internal = await rpc('x');
      expect(internal).toMatch(/Internal error \(ref [0-9a-f]{8}\)/);
      expect(internal).not.toContain('secret');
      expect(await rpc('missing')).toContain('Task missing not found');
      const rest = await fetch(`${url}/rest/tasks/x`, { headers: { 'a2a-version': '1.0' } });
      expect(rest.status).toBe(500);
      const body = await rest.text();
      expect(body).toMatch(/Internal error \(ref [0-9a-f]{8}\)/);
      expect(body).not.toContain('secret');
    } finally {
      server.close();
    }
  });
});

describe('an internal error the SDK raises itself', () => {
  it('answers "Internal error (ref …)" with the reference and the details in the log', async () => {
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const app = express();
    app.use(requestLifetime());
    // The SDK's v0.3 converter reads params.pushNotificationConfig.id before any handler runs.
    app.use(
      '/',
      express.json(),
      jsonRpcHandler({
        requestHandler: failingHandler(['1.0', '0.3']),
        userBuilder: async () => undefined as never,
        legacyCompat: { enabled: true },
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/pushNotificationConfig/set', params: {} }),
      });
      const { error } = (await response.json()) as { error: { code: number; message: string } };
      expect(error.code).toBe(-32603);
      const ref = /^Internal error \(ref ([0-9a-f]{8})\)$/.exec(error.message)?.[1];
      expect(ref, error.message).toBeDefined();
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ ref, err: expect.stringContaining('Cannot read properties') }),
        'Internal error',
      );
    } finally {
      server.close();
      logged.mockRestore();
    }
  });
});
