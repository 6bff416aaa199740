/** Child process of bench/subscribers.ts: holds SSE streams and reports when their tasks changed. */
import { pool, sleep, withTimeout } from './measure.js';
import { stateOf, subscribeToTask, type TaskStream } from './sse.js';
import type { SubscriberCommand, SubscriberReply } from './subscribers.js';

const CHANGED = new Set(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
/** Streams opened at once: enough to open 1,000 in seconds without a connect storm. */
const OPENING_AT_ONCE = 32;

interface Stream {
  abort: AbortController;
  opened?: TaskStream;
  /** When the task was first seen working or completed. */
  changedAt?: number;
}

const groups = new Map<string, Stream[]>();

async function handle(command: SubscriberCommand): Promise<SubscriberReply> {
  const { seq } = command;
  switch (command.kind) {
    case 'open': {
      const streams: Stream[] = [];
      groups.set(command.group, streams);
      const total = command.taskIds.length * command.perTask;
      await withTimeout(
        `opening ${total} streams`,
        command.timeoutMs,
        pool(total, OPENING_AT_ONCE, async (index) => {
          const stream: Stream = { abort: new AbortController() };
          streams.push(stream);
          let firstEvent!: () => void;
          const first = new Promise<void>((resolve) => (firstEvent = resolve));
          stream.opened = await subscribeToTask(
            command.agentUrl,
            command.taskIds[Math.floor(index / command.perTask)]!,
            (result, at) => {
              firstEvent();
              if (stream.changedAt === undefined && CHANGED.has(stateOf(result) ?? '')) stream.changedAt = at;
            },
            stream.abort.signal,
          );
          await first; // the task as it is now: the subscription is live
        }),
      );
      return { seq, kind: 'opened', streams: streams.length };
    }
    case 'collect': {
      const streams = groups.get(command.group) ?? [];
      const deadline = Date.now() + command.timeoutMs;
      while (Date.now() < deadline && streams.some((s) => s.changedAt === undefined)) await sleep(20);
      const arrivals = streams.flatMap((s) => (s.changedAt === undefined ? [] : [s.changedAt]));
      return { seq, kind: 'collected', arrivals, missing: streams.length - arrivals.length };
    }
    case 'close': {
      const streams = groups.get(command.group) ?? [];
      groups.delete(command.group);
      for (const stream of streams) stream.abort.abort();
      await withTimeout('closing streams', 10_000, Promise.all(streams.map((s) => s.opened?.ended))).catch(() => {});
      return { seq, kind: 'closed' };
    }
  }
}

process.on('message', (command: SubscriberCommand) => {
  handle(command).then(
    (reply) => process.send?.(reply),
    (error: unknown) => process.send?.({ seq: command.seq, kind: 'error', error: String(error) }),
  );
});
// Stop with the parent, whatever way it goes.
process.on('disconnect', () => process.exit(0));
process.send?.('ready');
