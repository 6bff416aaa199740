/**
 * A message to an agent's task, and what came of it: the application service behind A2A's
 * SendMessage and behind every answer a person gives through the gateway's own pages and channels
 * (task-replies.ts). The first message starts the task, a follow-up (one naming its task) reaches
 * the running one (both through src/tasks/); the workflow's validator decides whether the task
 * takes it, and the Update ID makes a resent message land once. It knows nothing of transports:
 * its callers say who sends, by which channel, and how much of the answer they want.
 */
import type { Message, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { IncomingMessage, MessageAccepted } from '../../protocol/contract.js';
import type { AnswerChannel } from '../../protocol/answer-channel.js';
import type { Caller } from '../../protocol/caller.js';
import { messageProblem } from '../../protocol/message-checks.js';
import type { PushConfig } from '../../protocol/push.js';
import { fromWireState, isSettled, isTerminal } from '../../protocol/states.js';
import type { WireMessage } from '../../protocol/wire.js';
import type { Delivery, TaskWorkflows } from '../../tasks/index.js';
import { toIncoming, toSdkMessage, toSdkTask } from './convert.js';
import type { TaskEventHub } from './task-events.js';

/**
 * Who sends a message and how: `caller`, the authenticated principal (owner of a new task);
 * `responder`, who answers, for the timeline; `channel`, the way it came, for receipts;
 * `idempotencyKey`, names the task a first message starts, so a retry finds it again.
 */
export interface Sender {
  responder: string | undefined;
  caller: Caller | undefined;
  channel: AnswerChannel;
  idempotencyKey?: string;
  pushConfig?: PushConfig;
}

/** How much of the outcome the sender waits for and reads back, as A2A's SendMessage configuration says. */
export interface AnswerWanted {
  /** Answer as soon as the task took the message, rather than once it settled. */
  returnImmediately: boolean;
  /** The most recent messages of the task's history to answer with (absent: all). */
  historyLength?: number;
}

export class TaskMessages {
  constructor(
    private readonly workflows: TaskWorkflows,
    private readonly events: TaskEventHub,
  ) {}

  /**
   * The message delivered, answered with the task (or the agent's direct message) as it settled,
   * or as it took the message with `returnImmediately`. One Update; a read more only when the
   * Update's own answer leaves out what the sender asked for.
   */
  async send(message: Message, from: Sender, wanted: AnswerWanted, signal: AbortSignal): Promise<Message | Task> {
    const { returnImmediately, historyLength } = wanted;
    const { taskId, accepted } = await this.sendToTask(message, { ...from, untilSettled: !returnImmediately }, signal);
    if (accepted.settled) {
      // The update itself waited for the answer. It holds an ended task up to 256 KB; a larger one, or a task waiting again, takes one more read.
      if (accepted.settled.directMessage) return toSdkMessage(accepted.settled.directMessage);
      if (accepted.settled.task) return toSdkTask(accepted.settled.task, historyLength);
      const { state, notifying } = accepted.settled;
      return toSdkTask(await this.workflows.readAccepted(taskId, state, notifying), historyLength);
    }
    const state = fromWireState(accepted.task.status.state) ?? 'submitted';
    if (returnImmediately || (accepted.duplicate && isSettled(state))) {
      // The Update's header is the task when it leaves out nothing asked for; else one read, by query
      // while the task goes on (the Update's validator has let this caller in through this agent).
      if (headerServes(accepted, historyLength)) return toSdkTask(accepted.task, historyLength);
      const read = isTerminal(state)
        ? this.workflows.read(taskId, from.caller)
        : this.workflows.readAccepted(taskId, state);
      return toSdkTask(await read, historyLength);
    }
    // A worker without the settled answer (older code) answered at once: follow the events.
    let direct: WireMessage | undefined;
    for await (const event of this.events.follow(taskId, accepted.lastSeq, signal)) {
      if (event.kind === 'message') direct = event.message;
    }
    if (direct) return toSdkMessage(direct);
    return toSdkTask(await this.workflows.read(taskId, from.caller), historyLength);
  }

  /** The message delivered, with the Update's answer as it came (a stream follows the task from there). */
  async sendToTask(
    message: Message,
    from: Sender & { untilSettled?: boolean },
    signal: AbortSignal,
  ): Promise<Delivery> {
    const incoming: IncomingMessage = {
      ...toIncoming(message, from.responder),
      agent: this.workflows.agent,
      channel: from.channel,
      ...(from.caller && { caller: from.caller }),
      ...(from.untilSettled && { untilSettled: true }),
      ...(from.pushConfig && { pushConfig: from.pushConfig }),
    };
    // Checked here too: a first message the workflow refused would leave a task that never starts.
    const problem = messageProblem(incoming);
    if (problem) throw new RequestMalformedError(problem);
    // Follow-ups need no key: their Update IDs already make a resent message land once.
    if (message.taskId) return this.workflows.followUp(message.taskId, incoming, signal);
    if (from.idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(from.idempotencyKey)) {
      throw new RequestMalformedError('Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    return this.workflows.start(incoming, {
      signal,
      ...(from.idempotencyKey !== undefined && { idempotencyKey: from.idempotencyKey }),
    });
  }
}

/** Visible ASCII, at most 255 characters (what common idempotency-key conventions allow). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Whether the accepted header is the task as a sender asking for `historyLength` messages needs it. */
function headerServes({ leftOut }: MessageAccepted, historyLength: number | undefined): boolean {
  if (!leftOut || leftOut.artifacts > 0) return false;
  return leftOut.messages === 0 || (historyLength !== undefined && historyLength <= 1);
}
