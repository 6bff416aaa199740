/**
 * A remote A2A agent that misbehaves on the wire: it serves a v1.0 card and answers JSON-RPC
 * SendMessage and GetTask as A2A says, but its task completes with a 5 MB artifact beside a small
 * one, more than a Temporal payload can hold. Counts the GetTask calls, so a test sees whether
 * the calling task keeps downloading it. Under `/gone` it serves no card (404); under `/forged`, the
 * card given to `forge` (another agent's signed card, altered).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const HUGE_ARTIFACT_BYTES = 5_000_000;

export interface HostileAgent {
  /** The agent's base URL (its card below it). */
  url: string;
  /** GetTask calls so far. */
  getTaskCalls(): number;
  /** Serves `card` under `/forged`. */
  forge(card: unknown): void;
  close(): Promise<void>;
}

export async function startHostileAgent(): Promise<HostileAgent> {
  let getTaskCalls = 0;
  let forged: unknown;
  const taskId = 'hostile-task-1';
  const task = (state: string, artifacts: unknown[] = []) => ({
    id: taskId,
    contextId: 'hostile-context',
    status: { state, timestamp: new Date().toISOString() },
    artifacts,
  });
  const server: Server = createServer((request, response) => {
    const answer = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
      return answer(200, {
        name: 'hostile-agent',
        description: 'Answers with an artifact too large to carry',
        version: '1.0.0',
        supportedInterfaces: [{ url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      });
    }
    if (request.method === 'GET' && request.url === '/forged/.well-known/agent-card.json' && forged) {
      return answer(200, forged);
    }
    if (request.method !== 'POST' || request.url !== '/') return answer(404, { error: 'not here' });
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      if (method === 'SendMessage')
        return answer(200, { jsonrpc: '2.0', id, result: { task: task('TASK_STATE_WORKING') } });
      if (method === 'GetTask') {
        getTaskCalls++;
        return answer(200, {
          jsonrpc: '2.0',
          id,
          result: task('TASK_STATE_COMPLETED', [
            { artifactId: 'huge', name: 'report', parts: [{ text: 'x'.repeat(HUGE_ARTIFACT_BYTES) }] },
            { artifactId: 'small', name: 'summary', parts: [{ text: 'all fine' }] },
          ]),
        });
      }
      return answer(200, { jsonrpc: '2.0', id, error: { code: -32601, message: `No method ${method}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    getTaskCalls: () => getTaskCalls,
    forge: (card) => (forged = card),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
