/**
 * A local webhook receiver speaking plain HTTP, as a push notification's target in tests.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, Record<string, unknown>>;
}

/**
 * A webhook that records what it accepts. While `failing` (or for a notification's first POST, while
 * `failingFirstAttempts`), it answers 503 and records the request in `refused` instead; while
 * `hanging`, it never answers (the request lands in `hung`).
 */
export class Webhook {
  readonly received: Received[] = [];
  readonly refused: Received[] = [];
  readonly hung: Received[] = [];
  failing = false;
  hanging = false;
  /** Answers 503 to the first POST of each notification (by its ID), 200 to the next. */
  failingFirstAttempts = false;
  private readonly open = new Set<ServerResponse>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const request = { headers: req.headers, raw, body: JSON.parse(raw.toString()) };
      if (this.hanging) {
        this.hung.push(request);
        this.open.add(res);
        return;
      }
      const firstAttempt = !this.refused.some(
        (r) => r.headers['x-a2a-notification-id'] === req.headers['x-a2a-notification-id'],
      );
      if (this.failing || (this.failingFirstAttempts && firstAttempt)) {
        this.refused.push(request);
        return res.writeHead(503).end('down for maintenance');
      }
      this.received.push(request);
      res.writeHead(200).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** The accepted notifications of one task (`from`: those refused or hung instead). */
  forTask(taskId: string, from: readonly Received[] = this.received): Received[] {
    const body = (r: Received) => r.body.statusUpdate ?? r.body.artifactUpdate;
    return from.filter((r) => body(r)?.taskId === taskId);
  }

  /** Drops the connections of the requests it left hanging (their senders see the connection reset). */
  dropHung(): void {
    for (const res of this.open) res.destroy();
    this.open.clear();
  }

  close(): Promise<void> {
    this.dropHung();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
