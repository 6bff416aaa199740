/**
 * People's answers on the gateway's own pages and channels: the inbox's reply, an email link's
 * confirmation, a Slack click. Each is a follow-up message to its task through the same
 * application service as A2A's SendMessage (TaskMessages.send), so it meets every check an A2A
 * reply meets (who may see and answer, no self-approval, the deadline, the reply's schema) and
 * costs the same Temporal calls; it does not go back in through the A2A request handler. It is
 * observed and guarded once here as the A2A transports' calls are in the handler chain: traced and
 * counted as a SendMessage whose transport is the channel (inbox, email, slack), refused at once
 * while Temporal is down, failing only with public errors. The chain's third link, the card's
 * required extensions, is the A2A clients' contract, not people's.
 */
import { randomUUID } from 'node:crypto';
import { Message, type Task } from '@a2a-js/sdk';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { ANSWERS_QUESTION_METADATA } from '../../protocol/contract.js';
import { senderOf, type GatewayUser } from '../http/request-context.js';
import type { TemporalHealth } from '../monitoring/temporal-health.js';
import { guardedCall } from './guarded-handler.js';
import { observedCall, type Observers } from './observed-handler.js';
import type { AnswerWanted, TaskMessages } from './task-messages.js';

/** A person's answer to a task's question. */
export interface PersonReply {
  agent: string;
  taskId: string;
  /** The answer's parts, as on the wire (a text or a data part). */
  parts: Record<string, unknown>[];
  /** The question it answers, as a reply names it: its id, else its askedAt (absent: whichever waits). */
  answers?: string | { question: string };
  /** Who answers, named by the person: counts only without authentication (development), as over A2A. */
  responder?: string;
}

export class TaskReplies {
  constructor(
    private readonly messages: ReadonlyMap<string, TaskMessages>,
    private readonly observersOf: (agent: string) => Observers,
    private readonly health: TemporalHealth,
  ) {}

  /** Whether `agent` is served here. */
  serves(agent: string): boolean {
    return this.messages.has(agent);
  }

  /** `reply`, as `user` on the channel the user came by; answered with the task as `wanted` says. */
  async answer(reply: PersonReply, user: GatewayUser, wanted: AnswerWanted): Promise<Message | Task> {
    const messages = this.messages.get(reply.agent);
    if (!messages) throw new TaskNotFoundError(`No agent ${reply.agent} is served here`);
    const metadata = {
      ...(reply.responder && { responder: reply.responder }),
      ...(reply.answers && { [ANSWERS_QUESTION_METADATA]: reply.answers }),
    };
    // A new message each answer: one given again (an email link posted twice) is refused as its
    // question's answer came before, where one Update ID would get the first answer's outcome back.
    const message = Message.fromJSON({
      messageId: randomUUID(),
      role: 'ROLE_USER',
      taskId: reply.taskId,
      parts: reply.parts,
      metadata,
    });
    const context = new ServerCallContext({ user, requestedVersion: '1.0' });
    const from = senderOf(context, message.metadata);
    return observedCall(this.observersOf(reply.agent), 'SendMessage', { message }, context, () =>
      guardedCall(this.health, 'sendMessage', context, () => messages.send(message, from, wanted, user.signal)),
    );
  }
}
