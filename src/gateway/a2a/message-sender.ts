/**
 * Delivers an A2A message to its task: the first message starts the task, a follow-up (one naming
 * its task) reaches the running one (both through src/tasks/). The workflow's validator decides
 * whether the task takes it; the Update ID makes a resent message land once.
 */
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { AnswerChannel, IncomingMessage } from '../../protocol/contract.js';
import type { Caller } from '../../protocol/caller.js';
import { messageProblem } from '../../protocol/message-checks.js';
import type { PushConfig } from '../../protocol/push.js';
import { toIncoming } from './convert.js';
import type { Delivery, TaskWorkflows } from '../../tasks/index.js';

/**
 * `caller`: the authenticated principal (owner of a new task); `responder`: who answers, for the
 * timeline; `channel`: the way it came, for receipts; `idempotencyKey`: names the task a first message starts, so a retry finds it again.
 */
export async function deliverMessage(
  workflows: TaskWorkflows,
  message: Message,
  from: {
    responder: string | undefined;
    caller: Caller | undefined;
    channel: AnswerChannel;
    untilSettled?: boolean;
    idempotencyKey?: string;
    pushConfig?: PushConfig;
  },
  signal: AbortSignal,
): Promise<Delivery> {
  const incoming: IncomingMessage = {
    ...toIncoming(message, from.responder),
    agent: workflows.agent,
    channel: from.channel,
    ...(from.caller && { caller: from.caller }),
    ...(from.untilSettled && { untilSettled: true }),
    ...(from.pushConfig && { pushConfig: from.pushConfig }),
  };
  // Checked here too: a first message the workflow refused would leave a task that never starts.
  const problem = messageProblem(incoming);
  if (problem) throw new RequestMalformedError(problem);
  // Follow-ups need no key: their Update IDs already make a resent message land once.
  if (message.taskId) return workflows.followUp(message.taskId, incoming, signal);
  if (from.idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(from.idempotencyKey)) {
    throw new RequestMalformedError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  }
  return workflows.start(incoming, {
    signal,
    ...(from.idempotencyKey !== undefined && { idempotencyKey: from.idempotencyKey }),
  });
}

/** Visible ASCII, at most 255 characters (what common idempotency-key conventions allow). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
