/**
 * Outgoing A2A messages, built with the SDK's generated fromJSON helpers so every field the
 * generated types require gets its proto default.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageRequest } from '@a2a-js/sdk';
import type { RequestOptions } from '@a2a-js/sdk/client';
import { ANSWERS_QUESTION_METADATA, CLIENT_METADATA, IDEMPOTENCY_KEY_HEADER } from '../protocol/contract.js';
import type { Content } from './command.js';

export interface MessageTarget {
  /** Answers this task (it must be waiting for input); a new task when omitted. */
  taskId?: string;
  /** Keeps the conversation: the gateway mints one when omitted. */
  contextId?: string;
  /** Claimed responder (metadata.responder), for allowed-responder checks and the audit timeline. */
  responder?: string;
  /** The open question a reply answers, by its id (ANSWERS_QUESTION_METADATA). */
  question?: string;
}

export function sendRequest(
  content: Content,
  target: MessageTarget = {},
  messageId: string = randomUUID(),
): SendMessageRequest {
  const parts: unknown[] = [];
  if (content.text !== undefined) parts.push({ text: content.text });
  if (content.data !== undefined) parts.push({ data: content.data, mediaType: 'application/json' });
  return SendMessageRequest.fromJSON({
    message: {
      // A fresh ID per message: the gateway dedupes on messageId + content, so a retried call is applied once.
      messageId,
      role: 'ROLE_USER',
      parts,
      ...(target.taskId && { taskId: target.taskId }),
      ...(target.contextId && { contextId: target.contextId }),
      // The gateway records the CLI as the channel of an answer (decision receipts, the audit).
      metadata: {
        [CLIENT_METADATA]: 'cli',
        ...(target.responder && { responder: target.responder }),
        ...(target.question && { [ANSWERS_QUESTION_METADATA]: { question: target.question } }),
      },
    },
  });
}

/**
 * A new task's send carries an idempotency key (its message ID, fresh per message): should the
 * connection drop and the call be made again, the gateway returns the same task instead of a second.
 */
export function sendOptions(request: SendMessageRequest): RequestOptions {
  const message = request.message;
  if (!message || message.taskId) return {};
  return { serviceParameters: { [IDEMPOTENCY_KEY_HEADER]: message.messageId } };
}
