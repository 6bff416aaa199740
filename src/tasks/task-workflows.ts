/**
 * The task workflows of one agent, as the gateway reaches them: starting a task (update-with-start),
 * a follow-up message (Update), cancelling (Update, then Temporal's own cancellation), the one
 * rule for an Update a closed workflow refused, and the snapshot query. Reading a task (read.ts),
 * its event log (events.ts, as `events`), the visibility list (visibility.ts, as `list`) and the
 * push configs (push-config-store.ts, as `pushConfigs`) are in this folder's other files.
 *
 * Failures reach callers as A2A errors (errors.ts); callers shape A2A requests and answers.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type A2AError,
} from '@a2a-js/sdk/errors';
import {
  answeredQuestion,
  cancelTaskUpdate,
  sendMessageUpdate,
  snapshotQuery,
  workflowIdForTask,
  type CancelRequest,
  type IncomingMessage,
  type MessageAccepted,
  type TaskSnapshotView,
  type TaskWorkflowInput,
  type TimelineEntry,
} from '../protocol/contract.js';
import type { Caller } from '../protocol/caller.js';
import { firstChangeSince } from '../protocol/errors.js';
import { stateOf, toWireState, type TaskStateName } from '../protocol/states.js';
import { ownerOf, taskStartOptions } from '../protocol/task-start.js';
import type { WireTask } from '../protocol/wire.js';
import { logger } from '../logging.js';
import { abortable } from './abortable.js';
import { updateIdFor } from './update-ids.js';
import { TASK_AGENT_METADATA, temporalCall, toA2AError, withStanding } from './errors.js';
import { TaskEventLog } from './events.js';
import { TaskChanges } from './task-changes.js';
import { QUERY_DEADLINE_MS, queryTask, TaskReader, taskWorkflow, type SubscribableTask } from './read.js';
import { PushConfigStore } from './push-config-store.js';
import { watchedUpdate } from './update-watch.js';
import { listTaskPage, type TaskListPage, type TaskListRequest } from './visibility.js';

const log = logger.child({ component: 'gateway' });

export interface Delivery {
  taskId: string;
  accepted: MessageAccepted;
}

export interface TaskWorkflowsOptions {
  /** The workflow type: tasks of other agents are not found through this one. */
  agent: string;
  /** Where new tasks (and closed tasks' push-config workflows) are started. */
  taskQueue: string;
  /** How the gateway learns that tasks changed, shared by its agents (default: one of this agent's own). */
  changes?: TaskChanges;
  /** The gateway has A2A_RECEIPT_SIGNING_KEY: its tasks ask for signed receipts (ReceiptRequest). */
  receipts?: boolean;
}

export class TaskWorkflows {
  readonly agent: string;
  /** The task's numbered event log, and the history long-poll that says when to read it again. */
  readonly events: TaskEventLog;
  /** Where this agent's changes are announced, and where its streams learn of changes made elsewhere. */
  readonly changes: TaskChanges;
  readonly pushConfigs: PushConfigStore;
  private readonly taskQueue: string;
  private readonly receipts: boolean;
  private readonly reader: TaskReader;

  constructor(
    private readonly client: Client,
    options: TaskWorkflowsOptions,
  ) {
    this.agent = options.agent;
    this.taskQueue = options.taskQueue;
    this.receipts = options.receipts ?? false;
    this.reader = new TaskReader(client, options.agent);
    this.changes = options.changes ?? new TaskChanges(client, { agents: [options.agent] });
    this.events = new TaskEventLog(client, QUERY_DEADLINE_MS);
    this.pushConfigs = new PushConfigStore(client, options.taskQueue, QUERY_DEADLINE_MS);
  }

  /**
   * A new task with its first message: update-with-start, answered once the workflow accepted it.
   * With an idempotency key, the task ID (and a context ID the message does not name) derive from
   * the key, its agent and its owner: a retry reaches the same workflow and, as the same Update,
   * gets the first attempt's answer — while the task runs, and after it ended for as long as
   * Temporal keeps it (the namespace's retention period).
   */
  async start(
    incoming: IncomingMessage,
    options: { idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<Delivery> {
    const owner = ownerOf(incoming);
    const derived = options.idempotencyKey ? keyedIds(this.agent, owner, options.idempotencyKey) : undefined;
    const taskId = derived ? derived.taskId : randomUUID();
    const contextId = incoming.contextId || (derived ? derived.contextId : randomUUID());
    const message: IncomingMessage = { ...incoming, contextId, ...(derived && { firstMessageOnly: true }) };
    const input: TaskWorkflowInput = { taskId, contextId, ...(this.receipts && { receipts: true }) };
    const startWorkflowOperation = new WithStartWorkflowOperation(this.agent, {
      ...taskStartOptions({ agent: this.agent, taskQueue: this.taskQueue, taskId, contextId, first: incoming }),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    try {
      const accepted = await abortable(this.client, options.signal ?? neverAborted(), () =>
        this.client.workflow.executeUpdateWithStart(sendMessageUpdate, {
          args: [message],
          updateId: updateIdFor(message),
          startWorkflowOperation,
        }),
      );
      log.info({ taskId, contextId, workflowId: workflowIdForTask(taskId), agent: this.agent }, 'task started');
      return { taskId, accepted };
    } catch (error) {
      // The keyed task has ended, so it takes no Update: the retry gets the task as it ended.
      if (derived && error instanceof WorkflowExecutionAlreadyStartedError) {
        return this.keyedTaskEnded(taskId, incoming);
      }
      throw toA2AError(error, taskId);
    }
  }

  /**
   * A follow-up message to a task, as an Update whose ID makes a resent message land once. The
   * Update is the one call an accepted or refused reply costs: its validator checks who may see and
   * answer the task, through which agent, the question, its deadline and the reply's schema; only a
   * workflow that has closed (which Temporal refuses as not found) costs a describe more.
   */
  async followUp(taskId: string, incoming: IncomingMessage, signal: AbortSignal): Promise<Delivery> {
    const handle = taskWorkflow(this.client, taskId);
    this.changes.willChange(taskId);
    try {
      const accepted = await watchedUpdate(this.client, taskId, signal, (watched) =>
        abortable(this.client, watched, () =>
          handle.executeUpdate(sendMessageUpdate, { args: [incoming], updateId: updateIdFor(incoming) }),
        ),
      );
      const { contextId } = accepted.task;
      log.info(
        { taskId, contextId, workflowId: handle.workflowId, duplicate: accepted.duplicate },
        'message delivered',
      );
      return { taskId, accepted };
    } catch (error) {
      const named = answeredQuestion(incoming.metadata).askedAt;
      return this.closedOrMissing(error, taskId, incoming.caller, ({ state, final }) => {
        const refusal = new UnsupportedOperationError(`Task ${taskId} is ${state} and accepts no more messages`);
        const timeline = (final?.metadata?.['timeline'] ?? []) as TimelineEntry[];
        const change = firstChangeSince(timeline, named);
        return withStanding(refusal, { state: toWireState(state), ...(change && { change }) });
      });
    }
  }

  /** Cancels a task and answers it whole, in `canceled` (see cancelWorkflow). */
  async cancel(taskId: string, request: CancelRequest, signal: AbortSignal): Promise<WireTask> {
    await this.checkVisible(taskId, request.caller);
    this.changes.willChange(taskId);
    try {
      return await cancelWorkflow(this.client, taskId, request, signal);
    } catch (error) {
      return this.closedOrMissing(
        error,
        taskId,
        request.caller,
        ({ state }) => new TaskNotCancelableError(`Task ${taskId} is ${state} and can no longer be canceled`),
      );
    }
  }

  /**
   * The task with its full history; TaskNotFound when no workflow has this task's ID, and when an
   * authenticated `caller` neither owns it nor may answer its question (see read.ts).
   */
  read(taskId: string, caller?: Caller): Promise<WireTask> {
    return this.reader.read(taskId, caller);
  }

  /** A task in `state` just after it accepted a message from the caller (see read.ts). */
  readAccepted(taskId: string, state: TaskStateName, notifying = false): Promise<WireTask> {
    return this.reader.readAccepted(taskId, state, notifying);
  }

  /** Where a new subscriber starts, for any caller (see read.ts). */
  subscribable(taskId: string): Promise<SubscribableTask> {
    return this.reader.subscribable(taskId);
  }

  /**
   * For an authenticated caller, TaskNotFound after one describe when the task does not exist or the
   * caller may not see it (see read.ts), before an Update or query that the worker would have to
   * answer: a stranger's refusal then takes as long as a missing task's. One describe more for
   * callers who may see the task; none without authentication, where everyone may.
   */
  async checkVisible(taskId: string, caller: Caller | undefined): Promise<void> {
    if (caller) await this.reader.checkVisible(taskId, caller);
  }

  /** The task and the sequence number of its last event, read at one instant (where a stream starts). */
  async snapshot(taskId: string, historyLength?: number): Promise<TaskSnapshotView> {
    return temporalCall(taskId, () =>
      taskWorkflow(this.client, taskId).query(snapshotQuery, { ...(historyLength !== undefined && { historyLength }) }),
    );
  }

  /** One page of this agent's tasks from Temporal visibility (see visibility.ts). */
  list(request: TaskListRequest): Promise<TaskListPage> {
    return listTaskPage(this.client, request);
  }

  /**
   * Throws what an Update's failure means. A closed workflow takes no Updates, and Temporal refuses
   * one with "not found" as it does for a workflow that never existed: a describe tells a finished
   * task (`refused`, with the state it ended in) from no such task, and names the agent of a task
   * addressed through another agent's endpoint. The workflow's own refusals (its validator's, which
   * already checked who may see the task) and any other failure stand as they are; so does the
   * describe's but a plain "not found". A describe that finds the workflow running again (the Update
   * raced a continue-as-new) reads the task.
   */
  private async closedOrMissing(
    error: unknown,
    taskId: string,
    caller: Caller | undefined,
    refused: (ended: { state: TaskStateName; final?: WireTask }) => A2AError,
  ): Promise<never> {
    const mapped = toA2AError(error, taskId);
    if (!(mapped instanceof TaskNotFoundError) || error instanceof WorkflowUpdateFailedError) throw mapped;
    let ended: { state: TaskStateName; final?: WireTask };
    try {
      ended = (await this.reader.ended(taskId, caller)) ?? { state: stateOf(await this.read(taskId, caller)) };
    } catch (readError) {
      throw readError instanceof TaskNotFoundError && !readError.metadata?.[TASK_AGENT_METADATA] ? mapped : readError;
    }
    throw refused(ended);
  }

  /** A keyed retry of a task that has ended: the task as it ended, if the retry is the same first message. */
  private async keyedTaskEnded(taskId: string, incoming: IncomingMessage): Promise<Delivery> {
    const task = await this.read(taskId, incoming.caller);
    const first = task.history?.find((message) => message.role === 'ROLE_USER');
    if (first && first.messageId !== incoming.messageId) {
      throw new RequestMalformedError(
        `The idempotency key already started task ${taskId} with another message; use a new key for a new task`,
      );
    }
    return { taskId, accepted: { task, lastSeq: 0, duplicate: true } };
  }
}

/**
 * Cancels a task and answers it whole, in `canceled`; Temporal's failures as they are (the tests of
 * the workflow's own refusals call this directly).
 *
 * The update does the A2A part: its validator refuses a caller who does not own the task and a task
 * already terminal (nothing is asked of Temporal then); its handler records who canceled, cancels
 * the agent's scope and returns once the work has stopped. A workflow ends CANCELED only when the
 * cancellation was requested through Temporal (the SDK decides, and a workflow cannot request it
 * for itself), so the Temporal UI lists an A2A-canceled task as CANCELED only if the gateway requests
 * it next. Safe against races: after settling, the workflow waits for that request before it closes
 * (task-workflow.ts, `endingForOutcome`), so it cannot end COMPLETED first; meanwhile it still
 * answers the query that reads the whole task. The request is made even when the client has gone or
 * the read failed: the task is canceled either way.
 */
export async function cancelWorkflow(
  client: Client,
  taskId: string,
  request: CancelRequest,
  signal: AbortSignal = neverAborted(),
): Promise<WireTask> {
  const handle = taskWorkflow(client, taskId);
  await abortable(client, signal, () => handle.executeUpdate(cancelTaskUpdate, { args: [request] }));
  try {
    return await queryTask(client, handle);
  } finally {
    await handle.cancel().catch((error: unknown) => {
      // A workflow that started before it waited for this request has already closed (COMPLETED).
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
  }
}

/** For calls no client can abort (tests, internal reads). */
function neverAborted(): AbortSignal {
  return new AbortController().signal;
}

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
