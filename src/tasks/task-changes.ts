/**
 * How a gateway learns that a task changed: one service per gateway, which every part of it that
 * shows a task as it changes subscribes to, fed by one mechanism per kind of change, so that each
 * Temporal read is made once per gateway however many want it:
 *
 * - a task some stream follows: its history long-poll, one per task for all of its streams (the
 *   streams' feed, src/gateway/a2a/task-events.ts, reads the task's event log when it wakes);
 * - a task this gateway is about to change (a message, a cancel): `willChange`, at once;
 * - a task another gateway is about to change: the gateways' change bus (change-bus.ts), listened
 *   to while a stream follows a task waiting for input;
 * - the rest (a deadline, an operator, a bus signal lost): visibility, as the backstop. For the
 *   followed tasks waiting for input, one list every 2 s for all of them (`waiting`, waiting-watch.ts);
 *   for every question waiting on the gateway's agents, one index (`questions`, waiting-index.ts)
 *   that the inbox's live lists page through and the metrics count.
 *
 * Nothing runs until something subscribes: a gateway no one follows makes no call.
 */
import type { Client } from '@temporalio/client';
import { GatewayChangeBus } from './change-bus.js';
import { WaitingQuestions } from './waiting-index.js';
import { WaitingTaskWatch } from './waiting-watch.js';

/** How long the waiting questions' index serves its rows before it looks again (the inbox's live-list period). */
const QUESTIONS_FRESH_MS = 1_000;

export interface TaskChangesOptions {
  /** The agents served: the questions index holds theirs. */
  agents: readonly string[];
  /**
   * The task queue of the agents' workers: their gateways share a change bus, and only its tasks'
   * questions are indexed; none: no bus (changes elsewhere show at a list), the agents' questions on any.
   */
  taskQueue?: string;
  /** How long the questions index serves its rows before it looks again (default 1 s). */
  questionsFreshMs?: number;
  /** The waiting watch's list period (tests lengthen it to see the bus alone). */
  waitingListMs?: number;
}

export class TaskChanges {
  /** Followed tasks waiting for input: one visibility list for all, instead of a long-poll each. */
  readonly waiting: WaitingTaskWatch;
  /** Every question waiting on the gateway's agents: the inbox's lists and the metrics read it. */
  readonly questions: WaitingQuestions;
  /** Tells the other gateways of this one's changes, and this one of theirs. */
  private readonly bus?: GatewayChangeBus;

  constructor(client: Client, options: TaskChangesOptions) {
    if (options.taskQueue !== undefined) {
      this.bus = new GatewayChangeBus(client, options.taskQueue, (taskIds) => {
        for (const taskId of taskIds) this.waiting.wake(taskId);
      });
    }
    this.waiting = new WaitingTaskWatch(client, {
      ...(options.waitingListMs !== undefined && { intervalMs: options.waitingListMs }),
      ...(this.bus && { onWatching: (watching: boolean) => this.bus!.listen(watching) }),
    });
    const questionsFreshMs = options.questionsFreshMs ?? QUESTIONS_FRESH_MS;
    this.questions = new WaitingQuestions(client, options.agents, questionsFreshMs, options.taskQueue);
  }

  /** This gateway is about to change `taskId` (a message, a cancel): its followers and the other gateways' look now. */
  willChange(taskId: string): void {
    this.waiting.wake(taskId);
    this.bus?.publish(taskId);
  }

  /** Stops listening to the other gateways (the gateway is closing). */
  close(): void {
    this.bus?.close();
  }
}
