/**
 * The A2A request handler of one agent, over Temporal. It keeps no task state: every answer comes
 * from the task's workflow (update, query, result, history), so any gateway instance can serve
 * any task, before and after restarts. It shapes A2A requests and answers; its Temporal calls go
 * through the door to Temporal, src/tasks/.
 */
import type { Client } from '@temporalio/client';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { mayAccessTask } from '../../protocol/contract.js';
import type { TaskEvent } from '../../protocol/task-events.js';
import type { Caller } from '../../protocol/caller.js';
import { idProblem } from '../../protocol/message-checks.js';
import { fromWireState, isSettled, isTerminal } from '../../protocol/states.js';
import type { WireTask } from '../../protocol/wire.js';
import type { AgentDefinition } from '../../workflows/agent-api.js';
import { eventStream, messageStream, taskStream, toSdkTask, withHistoryLength } from './convert.js';
import { taskNotFound } from '../../tasks/errors.js';
import { listTasks } from './list-tasks.js';
import { TaskMessages, type Sender } from './task-messages.js';
import { PushConfigs, toSdkPushConfig } from './push-config-requests.js';
import { NO_INWARD_HOSTS, type PushUrlPolicy } from '../../push/url-policy.js';
import { callerOf, responderOf, senderOf, signalOf } from '../http/request-context.js';
import { TaskEventHub } from './task-events.js';
import { TaskWorkflows, type SubscribableTask, type TaskChanges } from '../../tasks/index.js';

export interface TemporalRequestHandlerOptions {
  client: Client;
  agent: AgentDefinition;
  /** A promise while it is being signed (src/gateway/cards/card-signing.ts). */
  card: AgentCard | Promise<AgentCard>;
  /** Served by GetExtendedAgentCard; absent: ExtendedAgentCardNotConfigured. */
  extendedCard?: AgentCard | Promise<AgentCard>;
  taskQueue: string;
  /** Which webhook URLs push configs may name; default from A2A_PUSH_ALLOWED_HOSTS. */
  pushUrlPolicy?: PushUrlPolicy;
  /** How the gateway learns that tasks changed, one for all its agents (default: one of this agent's own). */
  changes?: TaskChanges;
  /** The gateway has A2A_RECEIPT_SIGNING_KEY: new tasks ask for signed receipts. */
  receipts?: boolean;
}

export class TemporalRequestHandler implements A2ARequestHandler {
  private readonly card: AgentCard | Promise<AgentCard>;
  private readonly extendedCard: AgentCard | Promise<AgentCard> | undefined;
  private readonly workflows: TaskWorkflows;
  private readonly pushConfigs: PushConfigs;
  /** Followers of one task share one feed of its events. */
  readonly events: TaskEventHub;
  /** Sending a message to a task: SendMessage here, and people's answers on the gateway's own pages and channels. */
  readonly messages: TaskMessages;
  private readonly mayAnswerWithMessage: boolean;

  constructor(options: TemporalRequestHandlerOptions) {
    this.card = options.card;
    this.extendedCard = options.extendedCard;
    this.workflows = new TaskWorkflows(options.client, {
      agent: options.agent.name,
      taskQueue: options.taskQueue,
      ...(options.changes && { changes: options.changes }),
      ...(options.receipts && { receipts: true }),
    });
    this.events = new TaskEventHub(this.workflows);
    this.messages = new TaskMessages(this.workflows, this.events);
    this.pushConfigs = new PushConfigs(this.workflows, options.pushUrlPolicy ?? NO_INWARD_HOSTS);
    this.mayAnswerWithMessage = options.agent.mayAnswerWithMessage ?? false;
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    if (!this.extendedCard) throw new ExtendedAgentCardNotConfiguredError('This agent has no extended agent card');
    return this.extendedCard;
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { message, from } = await this.sent(params, context);
    const wanted = {
      returnImmediately: params.configuration?.returnImmediately ?? false,
      ...(params.configuration?.historyLength !== undefined && {
        historyLength: params.configuration.historyLength,
      }),
    };
    return this.messages.send(message, from, wanted, signalOf(context));
  }

  /**
   * The task snapshot, then its events until it settles. An agent that may answer with a direct
   * message instead of a task gets a stream of only that message, so for such agents the snapshot
   * and the bare "working" transitions before it are held back until an event tells which it is.
   */
  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    const signal = signalOf(context);
    const { message, from } = await this.sent(params, context);
    const { taskId, accepted } = await this.messages.sendToTask(message, from, signal);
    const historyLength = params.configuration?.historyLength;
    if (!this.mayAnswerWithMessage) {
      // A new task is whole in the accepted header; an existing one is read whole, with the event
      // it stands at (its artifacts are not in the header). The stream goes on from that event.
      const { task, lastSeq } = params.message?.taskId
        ? await this.workflows.snapshot(taskId, historyLength)
        : { task: withHistoryLength(accepted.task, historyLength), lastSeq: accepted.lastSeq };
      yield taskStream(task);
      // Already terminal or waiting again (fast agents settle within the update's workflow task).
      if (isSettled(fromWireState(task.status.state) ?? 'submitted')) return;
      for await (const event of this.events.follow(taskId, lastSeq, signal)) {
        if (event.kind !== 'message') yield eventStream(task, event);
      }
      return;
    }
    // Held back until the agent shows whether it answers with a task or a message. The events
    // after the message was accepted tell; the accepted task header stands for the snapshot.
    const task = accepted.task;
    let held: StreamResponse[] | undefined = [taskStream(withHistoryLength(task, historyLength))];
    for await (const event of this.events.follow(taskId, accepted.lastSeq, signal)) {
      if (event.kind === 'message') {
        // Once the task has started streaming, the answer is the task, not a separate message.
        if (!held) continue;
        yield messageStream(event.message);
        return;
      }
      if (held && isBareWorking(event)) {
        held.push(eventStream(task, event));
        continue;
      }
      if (held) yield* held;
      held = undefined;
      yield eventStream(task, event);
    }
    if (held) yield* held;
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    checkTaskId(params.id);
    if (params.historyLength !== undefined && params.historyLength < 0) {
      throw new RequestMalformedError('historyLength must not be negative');
    }
    return toSdkTask(await this.workflows.read(params.id, callerOf(context)), params.historyLength);
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return listTasks(this.workflows, params, callerOf(context));
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    checkTaskId(params.id);
    const by = responderOf(context, params.metadata) ?? 'a2a-client';
    const caller = callerOf(context);
    const request = { by, agent: this.workflows.agent, ...(caller && { caller }) };
    return toSdkTask(await this.workflows.cancel(params.id, request, signalOf(context)));
  }

  /**
   * SubscribeToTask: the current snapshot, then every later event. The snapshot and the sequence
   * number it corresponds to are read consistently, so two subscribers see identical streams.
   */
  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    checkTaskId(params.id);
    const signal = signalOf(context);
    const { snapshot, readAt } = await this.subscribableStart(params.id, callerOf(context));
    yield taskStream(snapshot.task);
    const known = { ...(readAt && { readAt }), status: snapshot.task.status };
    for await (const event of this.events.follow(params.id, snapshot.lastSeq, signal, known)) {
      // A direct message answers the send that caused it; subscribers follow the task.
      if (event.kind !== 'message') yield eventStream(snapshot.task, event);
    }
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    checkTaskId(params.taskId);
    const config = await this.pushConfigs.accept(params);
    const saved = await this.pushConfigs.create(params.taskId, config, callerOf(context));
    return toSdkPushConfig(params.taskId, params.tenant, saved);
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    checkTaskId(params.taskId);
    const config = await this.pushConfigs.get(params.taskId, params.id, callerOf(context));
    return toSdkPushConfig(params.taskId, params.tenant, config);
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    checkTaskId(params.taskId);
    const configs = await this.pushConfigs.list(params.taskId, callerOf(context));
    return { configs: configs.map((c) => toSdkPushConfig(params.taskId, params.tenant, c)), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    checkTaskId(params.taskId);
    await this.pushConfigs.remove(params.taskId, params.id, callerOf(context));
  }

  /** The request's message and who sends it, as the transport and the request say; RequestMalformed if not one. */
  private async sent(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<{ message: Message; from: Sender }> {
    const { message } = params;
    if (!message) throw new RequestMalformedError('params.message is required');
    if (message.parts.length === 0) throw new RequestMalformedError('The message has no parts');
    if ((params.configuration?.historyLength ?? 0) < 0) {
      throw new RequestMalformedError('configuration.historyLength must not be negative');
    }
    const pushRequest = params.configuration?.taskPushNotificationConfig;
    const pushConfig = pushRequest ? await this.pushConfigs.accept(pushRequest) : undefined;
    return { message, from: { ...senderOf(context, message.metadata), ...(pushConfig && { pushConfig }) } };
  }

  /**
   * Shared by the task's other new subscribers; who may see it is checked per caller: first from the
   * describe, so a stranger is turned away before the shared start's query, as fast as for a missing task.
   */
  private async subscribableStart(taskId: string, caller: Caller | undefined): Promise<SubscribableTask> {
    await this.workflows.checkVisible(taskId, caller);
    const start = await this.events.startOf(taskId);
    if (!mayAccessTask(start.audience, caller)) throw taskNotFound(taskId);
    assertSubscribable(start.snapshot.task);
    return start;
  }
}

function assertSubscribable(task: WireTask): void {
  const state = fromWireState(task.status.state);
  if (state && isTerminal(state)) {
    throw new UnsupportedOperationError(`Task ${task.id} is ${state}; there is nothing left to subscribe to`);
  }
}

/** A working transition with no message: tells nothing about whether a task or a message follows. */
function isBareWorking(event: TaskEvent): boolean {
  return event.kind === 'status' && event.status.state === 'TASK_STATE_WORKING' && !event.status.message;
}

/** A task ID no task can have (too long, NUL) is the client's mistake; a huge one is not even echoed back. */
function checkTaskId(id: string): void {
  const problem = idProblem(id, 'id');
  if (problem) throw new RequestMalformedError(problem);
}
