/**
 * A local fake of Anthropic's Messages API, for tests of a second AI SDK provider: `POST
 * /v1/messages` answered as a server-sent event stream (message_start, text deltas, message_delta
 * with usage, message_stop), as `@ai-sdk/anthropic` reads it from the real service.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnthropicServer {
  /** Base URL including /v1, as `createAnthropic({ baseURL })` takes it. */
  readonly url: string;
  /** The request bodies, in order. */
  readonly requests: Record<string, unknown>[];
  /** The text the next requests are answered with, and the tokens they report. */
  answer(text: string, usage: { input: number; output: number }): void;
  close(): Promise<void>;
}

export async function startFakeAnthropicServer(): Promise<FakeAnthropicServer> {
  const requests: Record<string, unknown>[] = [];
  let reply = { text: '(no answer set)', usage: { input: 1, output: 1 } };
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error"}');
      return;
    }
    const body = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
    requests.push(body);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (type: string, data: object) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', {
      message: {
        id: `msg_${requests.length}`,
        model: body.model,
        role: 'assistant',
        content: [],
        usage: { input_tokens: reply.usage.input, output_tokens: 0 },
      },
    });
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const word of reply.text.match(/\S+\s*/g) ?? []) {
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: word } });
    }
    event('content_block_stop', { index: 0 });
    event('message_delta', {
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: reply.usage.output },
    });
    event('message_stop', {});
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    answer(text, usage) {
      reply = { text, usage };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
}
