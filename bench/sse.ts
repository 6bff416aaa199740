/** SubscribeToTask over JSON-RPC SSE: each event's `result`, with the time it arrived (epochNow). */
import { epochNow } from './measure.js';

export interface TaskStream {
  /** Resolves when the server ends the stream or it is aborted. */
  ended: Promise<void>;
}

/** Resolves once the response headers are in; events then go to `onEvent` until the stream ends. */
export async function subscribeToTask(
  agentUrl: string,
  taskId: string,
  onEvent: (result: any, at: number) => void,
  signal: AbortSignal,
): Promise<TaskStream> {
  const response = await fetch(agentUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
    signal,
  });
  if (!response.ok || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`SubscribeToTask ${taskId}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const at = epochNow();
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line.startsWith('data:')) onEvent(JSON.parse(line.slice(5)).result, at);
        }
      }
    } catch {
      // aborted, or the connection dropped: the stream has ended either way
    }
  })();
  return { ended };
}

/** The task state an event carries (a Task snapshot or a status update), if any. */
export function stateOf(result: any): string | undefined {
  return result?.statusUpdate?.status?.state ?? result?.task?.status?.state;
}
