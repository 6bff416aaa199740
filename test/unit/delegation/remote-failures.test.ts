/**
 * Which failures of a call to a remote agent end it at once and which are retried, on real HTTP:
 * a card that is not there, a port fetch refuses vs. a server that is down, busy or failing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REMOTE_AGENT_UNUSABLE } from '../../../src/protocol/delegation.js';
import { fetchCard, finalFailureOf } from '../../../src/delegation/remote-failures.js';
import { freePort } from '../../../src/temporal/dev-server.js';

const server = createServer((request, response) => response.writeHead(Number(request.url!.slice(1))).end());
let base: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => finalFailureOf(error),
  );

describe('remote agent failures', () => {
  it.each([400, 401, 403, 404, 410])('a card answered %i ends the call', async (status) => {
    const failure = await failureOf(fetchCard(`${base}/${status}`));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: REMOTE_AGENT_UNUSABLE, nonRetryable: true });
  });

  it.each([408, 429, 500, 503])(
    'a card answered %i is tried again (the resolver fails on it, retryable)',
    async (status) => {
      expect((await fetchCard(`${base}/${status}`)).status).toBe(status);
    },
  );

  it('a port the fetch spec blocks ends the call; a refused connection is retried', async () => {
    expect(await failureOf(fetch('http://127.0.0.1:10080/'))).toMatchObject({
      type: REMOTE_AGENT_UNUSABLE,
      message: "fetch refuses the agent's URL: bad port",
    });
    const refused = await failureOf(fetch(`http://127.0.0.1:${await freePort()}/`));
    expect(refused).not.toBeInstanceOf(ApplicationFailure);
    expect(refused).toBeInstanceOf(TypeError);
  });
});
