import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent } from '../../../src/cli/client.js';
import { CliError, ExitCode } from '../../../src/cli/errors.js';

/** A gateway whose card requests answer the status in the agent's name (`/agents/404/...` is 404). */
const server = createServer((req, res) => {
  res.writeHead(Number(/\/agents\/(\d{3})\//.exec(req.url ?? '')?.[1] ?? 404)).end('no card here');
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function failure(agent: string): Promise<CliError> {
  const error: unknown = await connectAgent({ url, transport: 'JSONRPC' }, agent).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('connectAgent', () => {
  it('names an unknown agent from the card request status (404), exit 3', async () => {
    expect(await failure('404')).toMatchObject({
      exitCode: ExitCode.Remote,
      message: `No agent "404" at ${url} (${url}/agents/404/.well-known/agent-card.json is 404): check the agent name`,
    });
  });

  it('reports any other card request status, exit 3', async () => {
    expect(await failure('500')).toMatchObject({
      exitCode: ExitCode.Remote,
      message: `The gateway answered HTTP 500 for ${url}/agents/500/.well-known/agent-card.json`,
    });
  });
});
