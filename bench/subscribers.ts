/**
 * SSE subscribers in a child process (bench/subscriber-process.ts), so that the gateway's memory and
 * CPU, measured in this process, are the gateway's alone, and 1,000 clients parsing events do not
 * share its event loop. Arrival times use epochNow, comparable between the two processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { withTimeout } from './measure.js';
import { stopChild } from './processes.js';

export type SubscriberCommand =
  | {
      seq: number;
      kind: 'open';
      group: string;
      agentUrl: string;
      taskIds: string[];
      perTask: number;
      timeoutMs: number;
    }
  | { seq: number; kind: 'collect'; group: string; timeoutMs: number }
  | { seq: number; kind: 'close'; group: string };

export type SubscriberReply =
  | { seq: number; kind: 'opened'; streams: number }
  /** `arrivals`: when each stream saw the task change to working or completed; `missing`: streams that did not. */
  | { seq: number; kind: 'collected'; arrivals: number[]; missing: number }
  | { seq: number; kind: 'closed' }
  | { seq: number; kind: 'error'; error: string };

type Command = SubscriberCommand extends infer C ? (C extends { seq: number } ? Omit<C, 'seq'> : never) : never;

export class Subscribers {
  private seq = 0;
  private readonly waiting = new Map<number, (reply: SubscriberReply) => void>();

  private constructor(readonly child: ChildProcess) {
    child.on('message', (reply: SubscriberReply) => this.waiting.get(reply.seq)?.(reply));
  }

  static async start(): Promise<Subscribers> {
    const entry = fileURLToPath(new URL('./subscriber-process.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await withTimeout(
      'subscriber process start',
      30_000,
      new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`subscriber process exited (${code})`)));
      }),
    );
    return new Subscribers(child);
  }

  /** Opens `perTask` SubscribeToTask streams to each task; resolves once each has its first event. */
  async open(group: string, agentUrl: string, taskIds: string[], perTask: number, timeoutMs: number): Promise<number> {
    const reply = await this.request({ kind: 'open', group, agentUrl, taskIds, perTask, timeoutMs }, timeoutMs);
    if (reply.kind !== 'opened') throw new Error(`unexpected ${reply.kind}`);
    return reply.streams;
  }

  /** Waits (bounded) until each stream of the group has seen its task turn working or completed. */
  async collect(group: string, timeoutMs: number): Promise<{ arrivals: number[]; missing: number }> {
    const reply = await this.request({ kind: 'collect', group, timeoutMs }, timeoutMs);
    if (reply.kind !== 'collected') throw new Error(`unexpected ${reply.kind}`);
    return reply;
  }

  async close(group: string): Promise<void> {
    await this.request({ kind: 'close', group }, 30_000);
  }

  stop(): Promise<void> {
    return stopChild(this.child, 'SIGTERM');
  }

  private request(command: Command, timeoutMs: number): Promise<SubscriberReply> {
    const seq = ++this.seq;
    const reply = new Promise<SubscriberReply>((resolve) => this.waiting.set(seq, resolve));
    this.child.send({ ...command, seq });
    return withTimeout(`subscribers ${command.kind}`, timeoutMs + 10_000, reply)
      .then((answer) => {
        if (answer.kind === 'error') throw new Error(`subscriber process: ${answer.error}`);
        return answer;
      })
      .finally(() => this.waiting.delete(seq));
  }
}
