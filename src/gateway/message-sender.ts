/**
 * Delivers an A2A message to its task workflow: update-with-start for a new task, an Update for a
 * follow-up. The workflow's validator decides whether the task takes it; the Update ID makes a
 * resent message land once.
 */
import { createHash, randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  sendMessageUpdate,
  workflowIdForTask,
  type Caller,
  type IncomingMessage,
  type MessageAccepted,
  type TaskWorkflowInput,
} from '../protocol/contract.js';
import {
  AGENT_ATTRIBUTE,
  CONTEXT_ID_ATTRIBUTE,
  OWNER_ATTRIBUTE,
  TASK_STATE_ATTRIBUTE,
} from '../protocol/search-attributes.js';
import { messageProblem } from '../protocol/message-checks.js';
import type { PushConfig } from '../protocol/push.js';
import { fromWireState } from '../protocol/states.js';
import { textOf } from '../protocol/wire.js';
import { toIncoming, updateIdFor } from './convert.js';
import { logger } from '../logging.js';
import { toA2AError } from './errors.js';
import type { TaskReader } from './task-reader.js';
import { abortable } from './abortable.js';

const log = logger.child({ component: 'gateway' });

export interface Delivery {
  taskId: string;
  accepted: MessageAccepted;
}

export class MessageSender {
  constructor(
    private readonly client: Client,
    private readonly reader: TaskReader,
    private readonly agentName: string,
    private readonly taskQueue: string,
  ) {}

  /**
   * `caller`: the authenticated principal (owner of a new task); `responder`: who answers, for the
   * timeline; `idempotencyKey`: names the task a first message starts, so a retry finds it again.
   */
  async deliver(
    message: Message,
    from: {
      responder: string | undefined;
      caller: Caller | undefined;
      untilSettled?: boolean;
      idempotencyKey?: string;
      pushConfig?: PushConfig;
    },
    signal: AbortSignal,
  ): Promise<Delivery> {
    const incoming: IncomingMessage = {
      ...toIncoming(message, from.responder),
      agent: this.agentName,
      ...(from.caller && { caller: from.caller }),
      ...(from.untilSettled && { untilSettled: true }),
      ...(from.pushConfig && { pushConfig: from.pushConfig }),
    };
    // Checked here too: a first message the workflow refused would leave a task that never starts.
    const problem = messageProblem(incoming);
    if (problem) throw new RequestMalformedError(problem);
    // Follow-ups need no key: their Update IDs already make a resent message land once.
    if (message.taskId) return this.followUp(message.taskId, incoming, signal);
    if (from.idempotencyKey === undefined) return this.start(incoming, signal);
    if (!IDEMPOTENCY_KEY.test(from.idempotencyKey)) {
      throw new RequestMalformedError('Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    return this.start(incoming, signal, from.idempotencyKey);
  }

  /**
   * Update-with-start. With an idempotency key, the task ID (and a context ID the message does not
   * name) derive from the key, its agent and its owner: a retry reaches the same workflow and, as
   * the same Update, gets the first attempt's answer — while the task runs, and after it ended for
   * as long as Temporal keeps it (the namespace's retention period).
   */
  private async start(incoming: IncomingMessage, signal: AbortSignal, idempotencyKey?: string): Promise<Delivery> {
    const derived = idempotencyKey && keyedIds(this.agentName, ownerOf(incoming), idempotencyKey);
    const taskId = derived ? derived.taskId : randomUUID();
    const contextId = incoming.contextId || (derived ? derived.contextId : randomUUID());
    const args: [IncomingMessage] = [{ ...incoming, contextId, ...(derived && { firstMessageOnly: true }) }];
    const input: TaskWorkflowInput = { taskId, contextId };
    const startWorkflowOperation = new WithStartWorkflowOperation(this.agentName, {
      workflowId: workflowIdForTask(taskId),
      taskQueue: this.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: `${this.agentName}: ${firstWords(incoming)}`,
      typedSearchAttributes: [
        { key: CONTEXT_ID_ATTRIBUTE, value: contextId },
        { key: AGENT_ATTRIBUTE, value: this.agentName },
        { key: TASK_STATE_ATTRIBUTE, value: 'submitted' },
        // Who asked (the owner when authenticated): an account ID, never an e-mail address (search attributes are not encrypted).
        ...(ownerOf(incoming) ? [{ key: OWNER_ATTRIBUTE, value: ownerOf(incoming)! }] : []),
      ],
    });
    try {
      const accepted = await abortable(this.client, signal, () =>
        this.client.workflow.executeUpdateWithStart(sendMessageUpdate, {
          args,
          updateId: updateIdFor(args[0]),
          startWorkflowOperation,
        }),
      );
      log.info({ taskId, contextId, workflowId: workflowIdForTask(taskId), agent: this.agentName }, 'task started');
      return { taskId, accepted };
    } catch (error) {
      // The keyed task has ended, so it takes no Update: the retry gets the task as it ended.
      if (derived && error instanceof WorkflowExecutionAlreadyStartedError) return this.ended(taskId, incoming);
      throw toA2AError(error, taskId);
    }
  }

  private async ended(taskId: string, incoming: IncomingMessage): Promise<Delivery> {
    const task = await this.reader.read(taskId, incoming.caller);
    const first = task.history?.find((message) => message.role === 'ROLE_USER');
    if (first && first.messageId !== incoming.messageId) {
      throw new RequestMalformedError(
        `The idempotency key already started task ${taskId} with another message; use a new key for a new task`,
      );
    }
    return { taskId, accepted: { task, lastSeq: 0, duplicate: true } };
  }

  private async followUp(taskId: string, incoming: IncomingMessage, signal: AbortSignal): Promise<Delivery> {
    const handle = this.reader.handle(taskId);
    try {
      const accepted = await abortable(this.client, signal, () =>
        handle.executeUpdate(sendMessageUpdate, { args: [incoming], updateId: updateIdFor(incoming) }),
      );
      const { contextId } = accepted.task;
      log.info(
        { taskId, contextId, workflowId: handle.workflowId, duplicate: accepted.duplicate },
        'message delivered',
      );
      return { taskId, accepted };
    } catch (error) {
      const mapped = toA2AError(error, taskId);
      if (mapped instanceof TaskNotFoundError) throw await this.whyNotFound(taskId, mapped, incoming.caller);
      throw mapped;
    }
  }

  /** A closed workflow takes no Updates: tell "finished task" apart from "no such task". */
  private async whyNotFound(taskId: string, notFound: unknown, caller: Caller | undefined): Promise<unknown> {
    try {
      const task = await this.reader.read(taskId, caller);
      const state = fromWireState(task.status.state) ?? 'completed';
      return new UnsupportedOperationError(`Task ${taskId} is ${state} and accepts no more messages`);
    } catch {
      return notFound;
    }
  }
}

/** Visible ASCII, at most 255 characters (what common idempotency-key conventions allow). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Stable IDs for a keyed first message, in UUID form (version 8: derived, not random). */
function keyedIds(agent: string, owner: string | undefined, key: string): { taskId: string; contextId: string } {
  const uuid = (purpose: string) => {
    const hex = createHash('sha256')
      .update(JSON.stringify([purpose, agent, owner ?? null, key]))
      .digest('hex');
    const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
  return { taskId: uuid('task'), contextId: uuid('context') };
}

function ownerOf(incoming: IncomingMessage): string | undefined {
  return incoming.caller?.id ?? incoming.responder;
}

/** The static summary operators see in the Temporal UI. */
function firstWords(incoming: IncomingMessage): string {
  const text = textOf(incoming.parts ?? []) || incoming.text || '(no text)';
  const words = text.split(/\s+/).filter(Boolean).slice(0, 12).join(' ');
  return words.length > 120 ? `${words.slice(0, 117)}...` : words;
}
