/** SubscribeToTask over JSON-RPC SSE: each event's `result`, with the time it arrived (epochNow). */
import http from 'node:http';
import { epochNow } from './measure.js';

export interface TaskStream {
  /** Resolves when the server ends the stream or it is aborted. */
  ended: Promise<void>;
}

/**
 * Resolves once the response headers are in; events then go to `onEvent` until the stream ends.
 * Read with node:http rather than fetch: with a thousand streams in one process, fetch's web
 * streams cost enough per chunk that the client, not the gateway, set the measured latency.
 */
export function subscribeToTask(
  agentUrl: string,
  taskId: string,
  onEvent: (result: any, at: number) => void,
  signal: AbortSignal,
): Promise<TaskStream> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } });
  return new Promise((resolveStream, reject) => {
    const request = http.request(agentUrl, {
      method: 'POST',
      agent: STREAMS_AGENT,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'A2A-Version': '1.0',
        Accept: 'text/event-stream',
      },
      signal,
    });
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode !== 200 || !response.headers['content-type']?.startsWith('text/event-stream')) {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.once('end', () =>
          reject(new Error(`SubscribeToTask ${taskId}: HTTP ${response.statusCode} ${text.slice(0, 300)}`)),
        );
        return;
      }
      const ended = new Promise<void>((resolveEnd) => {
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const at = epochNow();
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (line.startsWith('data:')) onEvent(JSON.parse(line.slice(5)).result, at);
          }
        });
        // Aborted, or the connection dropped: the stream has ended either way.
        response.once('close', () => resolveEnd());
        response.once('error', () => resolveEnd());
      });
      resolveStream({ ended });
    });
    request.end(body);
  });
}

/** One connection per stream, with no pool limit: every stream stays open at once. */
const STREAMS_AGENT = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** The task state an event carries (a Task snapshot or a status update), if any. */
export function stateOf(result: any): string | undefined {
  return result?.statusUpdate?.status?.state ?? result?.task?.status?.state;
}
