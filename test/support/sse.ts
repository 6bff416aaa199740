/** A raw JSON-RPC SSE client: what a strict client sees on the wire, one `data:` line per event. */
import { randomUUID } from 'node:crypto';

export async function* sseRpc(url: string, method: string, params: unknown, signal?: AbortSignal): AsyncGenerator<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    ...(signal && { signal }),
  });
  for await (const body of sseEvents(response)) {
    if (body.error) throw new Error(`stream error ${body.error.code}: ${body.error.message}`);
    yield body.result;
  }
}

/** The JSON document of each `data:` line of an SSE response (JSON-RPC envelopes or bare events). */
export async function* sseEvents(response: Response): AsyncGenerator<any> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`not a stream: ${response.status} ${await response.text()}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line.startsWith('data:')) yield JSON.parse(line.slice(5));
    }
  }
}

export function stateOf(event: any): string | undefined {
  return event.task?.status?.state ?? event.statusUpdate?.status?.state;
}
