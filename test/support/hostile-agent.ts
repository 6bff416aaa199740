/**
 * A remote A2A agent that misbehaves on the wire: it serves a v1.0 card and answers JSON-RPC
 * SendMessage and GetTask as A2A says, but its task completes with a 5 MB artifact beside a small
 * one, more than a Temporal payload can hold. Counts the GetTask calls, so a test sees whether
 * the calling task keeps downloading it. Under `/gone` it serves no card (404); under `/forged`, the
 * card given to `forge` (another agent's signed card, altered). Under `/streaming` an agent that
 * streams: SendStreamingMessage sends the task and its report's first chunk, then cuts the
 * connection; SubscribeToTask sends the task so far, the second chunk and the end (completed).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const HUGE_ARTIFACT_BYTES = 5_000_000;

export interface HostileAgent {
  /** The agent's base URL (its card below it). */
  url: string;
  /** GetTask calls so far. */
  getTaskCalls(): number;
  /** Serves `card` under `/forged`. */
  forge(card: unknown): void;
  /** Calls to `/streaming` by method. */
  streamingCalls(method: 'SendStreamingMessage' | 'SubscribeToTask'): number;
  close(): Promise<void>;
}

export async function startHostileAgent(): Promise<HostileAgent> {
  let getTaskCalls = 0;
  let forged: unknown;
  const streamingCalls = { SendStreamingMessage: 0, SubscribeToTask: 0 };
  /** Set once a subscriber got the end: GetTask says completed from then on. */
  let streamed = false;
  const taskId = 'hostile-task-1';
  const streamTaskId = 'hostile-stream-task';
  const task = (state: string, artifacts: unknown[] = []) => ({
    id: taskId,
    contextId: 'hostile-context',
    status: { state, timestamp: new Date().toISOString() },
    artifacts,
  });
  const server: Server = createServer((request, response) => {
    const answer = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const card = (url: string, streaming: boolean) => ({
      name: 'hostile-agent',
      description: 'Answers with an artifact too large to carry',
      version: '1.0.0',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    });
    if (request.method === 'GET' && request.url === '/streaming/.well-known/agent-card.json') {
      return answer(200, card(`${base}/streaming`, true));
    }
    if (request.method === 'POST' && request.url === '/streaming') return streaming(request, response);
    if (request.method === 'GET' && request.url === '/.well-known/agent-card.json') {
      return answer(200, {
        ...card(base, false),
        capabilities: {},
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
  const chunk = (text: string, append: boolean, lastChunk: boolean) => ({
    artifactUpdate: {
      taskId: streamTaskId,
      contextId: 'hostile-context',
      artifact: { artifactId: 'report', name: 'report', parts: [{ text }] },
      append,
      lastChunk,
    },
  });
  const streamTask = (state: string, parts: string[]) => ({
    id: streamTaskId,
    contextId: 'hostile-context',
    status: { state, timestamp: new Date().toISOString() },
    artifacts: [{ artifactId: 'report', name: 'report', parts: parts.map((text) => ({ text })) }],
  });
  const streaming = (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (data: Buffer) => (body += data.toString()));
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      const event = (result: unknown) => response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
      if (method === 'GetTask') {
        const task = streamed
          ? streamTask('TASK_STATE_COMPLETED', ['chunk one, ', 'chunk two'])
          : streamTask('TASK_STATE_WORKING', ['chunk one, ']);
        return response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
      }
      if (method !== 'SendStreamingMessage' && method !== 'SubscribeToTask') return response.writeHead(404).end();
      streamingCalls[method]++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (method === 'SendStreamingMessage') {
        streamed = false;
        event({ task: { ...streamTask('TASK_STATE_WORKING', []), artifacts: [] } });
        event(chunk('chunk one, ', false, false));
        // Cut mid-stream, as a proxy that drops the connection would.
        setTimeout(() => response.socket?.destroy(), 200);
        return;
      }
      event({ task: streamTask('TASK_STATE_WORKING', ['chunk one, ']) });
      event(chunk('chunk two', true, true));
      streamed = true;
      event({
        statusUpdate: { taskId: streamTaskId, contextId: 'hostile-context', status: { state: 'TASK_STATE_COMPLETED' } },
      });
      response.end();
    });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    getTaskCalls: () => getTaskCalls,
    forge: (card) => (forged = card),
    streamingCalls: (method) => streamingCalls[method],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
