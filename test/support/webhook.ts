/**
 * A local webhook receiver speaking plain HTTP, as a push notification's target in tests.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, Record<string, unknown>>;
}

/** A webhook that records what it accepts; while `failing`, it answers 503 and records nothing. */
export class Webhook {
  readonly received: Received[] = [];
  failing = false;
  attempts = 0;
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.attempts += 1;
      if (this.failing) return res.writeHead(503).end('down for maintenance');
      const raw = Buffer.concat(chunks);
      this.received.push({ headers: req.headers, raw, body: JSON.parse(raw.toString()) });
      res.writeHead(200).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  forTask(taskId: string): Received[] {
    const body = (r: Received) => r.body.statusUpdate ?? r.body.artifactUpdate;
    return this.received.filter((r) => body(r)?.taskId === taskId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
