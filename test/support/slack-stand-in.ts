/**
 * A Slack stand-in for the channel tests: a local HTTP server that answers the Web API calls the
 * channel makes (chat.postMessage, chat.update) and incoming webhooks, checking their shape.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BOT_TOKEN = 'xoxb-test-token';

export interface SlackCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: { channel?: string; ts?: string; text: string; blocks: Array<Record<string, unknown>> };
}

/**
 * Answers chat.postMessage and chat.update as Slack does (200 with ok or an error), and incoming
 * webhooks with "ok". Each posted message gets a conversation and a `ts` of its own; an update must
 * name a message that was posted (message_not_found otherwise), and bring text and blocks.
 */
export class SlackStandIn {
  readonly calls: SlackCall[] = [];
  /** `channel ts` of every message posted. */
  readonly posted = new Set<string>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const call = { path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) };
      this.calls.push(call);
      if (call.path === '/hooks/incoming') return res.writeHead(200).end('ok');
      const json = (value: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.headers.authorization !== `Bearer ${BOT_TOKEN}`) return json({ ok: false, error: 'invalid_auth' });
      if (call.path === '/api/chat.update') {
        const { channel, ts, text, blocks } = call.body;
        if (!this.posted.has(`${channel} ${ts}`)) return json({ ok: false, error: 'message_not_found' });
        if (typeof text !== 'string' || !Array.isArray(blocks)) return json({ ok: false, error: 'invalid_arguments' });
        return json({ ok: true, channel, ts, text });
      }
      if (call.path !== '/api/chat.postMessage') return json({ ok: false, error: 'unknown_method' });
      if (call.body.channel === 'UNKNOWN1') return json({ ok: false, error: 'channel_not_found' });
      // A direct message's conversation is the bot's with that user.
      const channel = `D${call.body.channel?.slice(1)}`;
      const ts = `${this.calls.length}.000100`;
      this.posted.add(`${channel} ${ts}`);
      json({ ok: true, channel, ts });
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
