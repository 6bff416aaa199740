/**
 * The raw floor of paths 4 and 5: a plain Temporal workflow's change fanned out to SSE clients by
 * the least a server can do. A node:http server (no express, no A2A SDK, no project code) holds the
 * streams; per workflow, one history long-poll; when the workflow completes, one frame serialized
 * once and written to every stream. It speaks just enough of SubscribeToTask over JSON-RPC SSE for
 * bench/sse.ts to read it: the streams' clients are the same as the project's. Open streams get
 * the gateway's keepalive comment on the gateway's period, all in one tick, as the gateway does.
 */
import type { Client } from '@temporalio/client';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSE_KEEPALIVE_MS } from '../src/gateway/http/sdk-compat/index.js';

interface Watched {
  streams: Set<{ res: http.ServerResponse; id: string }>;
  abort: AbortController;
}

export class RawFanout {
  private readonly watched = new Map<string, Watched>();
  private readonly keepalives = setInterval(() => this.keepalive(), SSE_KEEPALIVE_MS).unref();

  private constructor(
    private readonly client: Client,
    private readonly server: http.Server,
  ) {}

  static async start(client: Client): Promise<RawFanout> {
    const server = http.createServer();
    const fanout = new RawFanout(client, server);
    server.on('request', (req, res) => fanout.subscribe(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fanout;
  }

  /** Where bench/sse.ts subscribes: the task ID it sends is the raw workflow's ID. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  async close(): Promise<void> {
    clearInterval(this.keepalives);
    for (const watched of this.watched.values()) watched.abort.abort();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private subscribe(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.once('end', () => {
      const request = JSON.parse(body) as { id: unknown; params: { id: string } };
      const workflowId = request.params.id;
      const stream = { res, id: JSON.stringify(request.id) };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // The task as it stands: the subscriber waits for a first event before the change is sent.
      res.write(
        frame(stream.id, JSON.stringify({ task: { id: workflowId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } })),
      );
      const watched = this.watched.get(workflowId) ?? this.watch(workflowId);
      watched.streams.add(stream);
      res.once('close', () => {
        watched.streams.delete(stream);
        if (watched.streams.size > 0) return;
        watched.abort.abort();
        this.watched.delete(workflowId);
      });
    });
  }

  private keepalive(): void {
    for (const { streams } of this.watched.values()) for (const { res } of streams) res.write(': keepalive\n\n');
  }

  /**
   * One history long-poll for all of a workflow's streams, until it completes or they all leave (a
   * long-poll under way then ends on its own, within ~20 s).
   */
  private watch(workflowId: string): Watched {
    const watched: Watched = { streams: new Set(), abort: new AbortController() };
    this.watched.set(workflowId, watched);
    const { signal } = watched.abort;
    void (async () => {
      let nextPageToken: Uint8Array | undefined;
      while (!signal.aborted) {
        const response = await this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.client.options.namespace,
          execution: { workflowId },
          waitNewEvent: true,
          ...(nextPageToken?.length && { nextPageToken }),
        });
        nextPageToken = response.nextPageToken ?? undefined;
        if (response.history?.events?.some((event) => event.workflowExecutionCompletedEventAttributes)) {
          const result = JSON.stringify({
            statusUpdate: { taskId: workflowId, status: { state: 'TASK_STATE_COMPLETED' } },
          });
          for (const stream of watched.streams) stream.res.write(frame(stream.id, result));
          return;
        }
        if (!nextPageToken?.length) return;
      }
    })().catch(() => {});
    return watched;
  }
}

/** One JSON-RPC SSE event: the result serialized once, only the request ID spliced in per stream. */
function frame(id: string, result: string): string {
  return `data: {"jsonrpc":"2.0","id":${id},"result":${result}}\n\n`;
}
