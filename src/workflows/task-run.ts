/**
 * One run of a task's workflow, as the process reads: wait for the first message, run the agent
 * inside a cancellation scope (continuing as new while it waits for a human, once Temporal suggests
 * it), settle the task in exactly one terminal state, and end the workflow the way Temporal should
 * show that outcome. The order of these steps is the order of the workflow's commands: recorded
 * histories replay it (test/integration/workflows/replay.test.ts).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  log,
  upsertMemo,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { FINAL_EVENTS_MEMO, FINAL_TASK_MEMO, taskIdOfWorkflow, type TaskWorkflowInput } from '../protocol/contract.js';
import type { WireTask } from '../protocol/wire.js';
import { AgentFailure, TaskRejection, type AgentDefinition, type AgentResult } from './agent-api.js';
import { AgentJournal } from './agent-journal.js';
import { WAITING_STEPS, createAgentContext } from './agent-context.js';
import { TaskRecord } from './task-record.js';
import { TaskRuntime, agentMessage } from './task-runtime.js';
import { hasPatch, PATCH, settlesWithoutConditionRounds } from './task-patches.js';

/** How long a task canceled through A2A waits for the gateway's Temporal cancellation before ending anyway. */
const TEMPORAL_CANCEL_GRACE = '1 minute';

/** How the workflow ends in Temporal: with the task as its result, FAILED, or CANCELED. */
type Ending = 'completed' | 'failed' | 'canceled';

/** What the agent's run came to. */
type AgentRun = { kind: 'returned'; result: AgentResult } | { kind: 'threw'; error: unknown } | { kind: 'continue' };

export class TaskRun {
  private readonly root = CancellationScope.current();
  private readonly record: TaskRecord;
  private readonly runtime: TaskRuntime;
  private readonly journal: AgentJournal;

  /** The task as this run starts it: new, or carried over by continue-as-new; its handlers listen from here. */
  constructor(
    private readonly agent: AgentDefinition,
    input: TaskWorkflowInput,
  ) {
    const now = () => new Date().toISOString();
    const carried = 'carried' in input ? input.carried : undefined;
    const record = carried
      ? TaskRecord.restore(carried.task, now)
      : TaskRecord.create({ ...taskIds(input), agent: agent.name, receipts: input.receipts === true }, now);
    if (agent.pushEvents) record.selectPushEvents(agent.pushEvents);
    this.record = record;
    this.runtime = new TaskRuntime(record);
    this.journal = new AgentJournal(carried?.journal);
    this.runtime.registerHandlers();
    this.runtime.push.resume();
    this.runtime.approvers.resume();
    if ('firstMessage' in input) this.runtime.takeFirstMessage(input.firstMessage);
    if (carried) this.runtime.publishDetails();
    else this.runtime.publish();
  }

  async execute(): Promise<WireTask> {
    const run = await this.runUntilOutcome();
    if (run.kind === 'continue') return this.continueAsNew();
    const canceledByTemporal = this.root.consideredCancelled;
    await CancellationScope.nonCancellable(async () => {
      this.settle(run, canceledByTemporal);
      await condition(allHandlersFinished);
      // The terminal notification too: the workflow stays open until its webhooks have it (or gave up).
      // And its approvers hear how their question ended (approver-notifications.ts): idle at once without notices.
      const idle = () => this.runtime.push.idle && this.runtime.approvers.idle;
      if (!settlesWithoutConditionRounds() || !idle()) await condition(idle);
    });
    // Temporal's own status tells the A2A outcome in the UI's list and its Failures count; workflows
    // that started before this change end as they always did.
    const ending: Ending = hasPatch(PATCH.temporalStatusForOutcome)
      ? await this.endingForOutcome()
      : canceledByTemporal
        ? 'canceled'
        : 'completed';
    return this.end(run, ending);
  }

  /** The agent's run, once the first message came; a cancel before it ends the task unstarted. */
  private async runUntilOutcome(): Promise<AgentRun> {
    const { runtime } = this;
    try {
      await condition(() => runtime.firstMessage !== undefined || runtime.cancelRequest !== undefined);
      return runtime.cancelRequest ? { kind: 'threw', error: new CanceledBeforeStart() } : await this.runAgent();
    } catch (error) {
      return { kind: 'threw', error };
    }
  }

  private continueAsNew(): Promise<WireTask> {
    const { record } = this;
    return continueAsNew<(input: TaskWorkflowInput) => Promise<WireTask>>({
      taskId: record.id,
      contextId: record.contextId,
      carried: { task: record.snapshot(), journal: this.journal.entries() },
    });
  }

  private async runAgent(): Promise<AgentRun> {
    const { runtime, record } = this;
    const scope = new CancellationScope();
    runtime.agentScope = scope;
    const work: Promise<AgentRun> = scope
      .run(async () => {
        if (record.state === 'submitted') runtime.changeState('working', { by: 'agent' });
        return this.agent.run(createAgentContext(runtime, this.journal, runtime.firstMessage!));
      })
      .then(
        (result): AgentRun => ({ kind: 'returned', result }),
        (error: unknown): AgentRun => ({ kind: 'threw', error }),
      );
    if (settlesWithoutConditionRounds()) {
      // The watch for continue-as-new starts when the agent first waits for a reply (it cannot be
      // ready before): a task that never waits, most of them, is spared its scopes and condition.
      return new Promise<AgentRun>((resolve) => {
        void work.then(resolve);
        void runtime.firstReplyWait
          .then(() => this.continueWhenReady())
          .then(resolve, (error: unknown) => {
            resolve({ kind: 'threw', error });
          });
      });
    }
    // Before release 2 (task-patches.ts): the agent's work races a continue-as-new watch from its start.
    for (;;) {
      // Not cancellable: a cancel must reach the agent's work and wait for it to stop, not cut this race short.
      const continueSuggested = CancellationScope.nonCancellable(() => condition(() => this.readyToContinueAsNew()));
      const next = await Promise.race([work, continueSuggested.then((): AgentRun => ({ kind: 'continue' }))]);
      if (next.kind !== 'continue') return next;
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
      if (this.readyToContinueAsNew()) return next;
    }
  }

  /** Continue-as-new once Temporal suggests it, the agent waits for a human, and no handler runs. */
  private async continueWhenReady(): Promise<AgentRun> {
    for (;;) {
      // Not cancellable: a cancel must reach the agent's work and wait for it to stop, not end this watch.
      await CancellationScope.nonCancellable(() => condition(() => this.readyToContinueAsNew()));
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
      if (this.readyToContinueAsNew()) return { kind: 'continue' };
    }
  }

  /** Only while the agent waits for a human and nothing else is under way. */
  private readyToContinueAsNew(): boolean {
    const { runtime, record } = this;
    return (
      workflowInfo().continueAsNewSuggested &&
      (record.state === 'input-required' || record.state === 'auth-required') &&
      runtime.waits.size > 0 &&
      [...runtime.waits.values()].every((wait) => wait.reply === undefined) &&
      runtime.cancelRequest === undefined &&
      !this.root.consideredCancelled &&
      runtime.push.idle &&
      runtime.approvers.idle &&
      this.journal.onlyWaitingOn(WAITING_STEPS)
    );
  }

  /** The task's one terminal state for what the agent's run came to. */
  private settle(outcome: AgentRun, canceledByTemporal: boolean): void {
    if (outcome.kind === 'continue') return;
    const { runtime } = this;
    // A cancel wins even when agent code caught the cancellation and returned: the client asked to stop.
    const canceled =
      runtime.cancelRequest !== undefined ||
      canceledByTemporal ||
      (outcome.kind === 'threw' && (isCancellation(outcome.error) || outcome.error instanceof CanceledBeforeStart));
    if (canceled) {
      const request = runtime.cancelRequest;
      const by = request?.by ?? (canceledByTemporal ? 'temporal' : 'agent');
      const reason = request?.reason ?? (canceledByTemporal ? 'Canceled from Temporal' : 'Canceled');
      return runtime.changeState('canceled', { message: agentMessage(runtime, reason), by });
    }
    if (outcome.kind === 'returned') return this.complete(outcome.result);
    const { error } = outcome;
    if (error instanceof TaskRejection) {
      return runtime.changeState('rejected', { message: agentMessage(runtime, error.reason), by: 'agent' });
    }
    const where = `workflow ${workflowInfo().workflowId}, run ${workflowInfo().runId}`;
    // Which activity ran out of attempts is safe to say (its error may hold secrets: it stays in the logs).
    const safeMessage =
      error instanceof AgentFailure
        ? error.message
        : error instanceof ActivityFailure
          ? `The agent's activity ${error.activityType} failed and ran out of retries (${where}); the worker's log says why`
          : `The agent failed with an internal error (${where})`;
    log.error('Agent failed', { error, taskId: this.record.id });
    runtime.changeState('failed', { message: agentMessage(runtime, safeMessage), by: 'agent' });
  }

  private complete(result: AgentResult): void {
    const { runtime } = this;
    const reply = typeof result === 'string' ? { text: result } : (result ?? {});
    const parts = reply.parts ?? (reply.text !== undefined ? [{ text: reply.text }] : []);
    const message = parts.length > 0 ? { ...agentMessage(runtime, ''), parts } : undefined;
    if (reply.asMessage && message) this.record.respondWithMessage(message);
    runtime.changeState('completed', { ...(message && !reply.asMessage && { message }), by: 'agent' });
  }

  /**
   * FAILED for a failed or rejected task, CANCELED for a canceled one. The TS SDK ends a workflow
   * CANCELED only when Temporal itself asked it to cancel, so an A2A CancelTask is followed by
   * Temporal's cancellation: the gateway requests it once the `cancel` update has completed (see
   * src/tasks/task-workflows.ts). The update has already stopped the agent's work; here the
   * workflow stays open until that request arrives, so it cannot close COMPLETED before it. The
   * wait is bounded: if the request never comes (the gateway died in between, or an operator sent
   * the update by hand), the task is still canceled and the workflow ends COMPLETED as before.
   */
  private async endingForOutcome(): Promise<Ending> {
    const { root, record } = this;
    if (this.runtime.cancelRequest && !root.consideredCancelled) {
      await CancellationScope.nonCancellable(() =>
        condition(() => root.consideredCancelled, TEMPORAL_CANCEL_GRACE, {
          summary: 'waiting for the gateway to cancel the workflow in Temporal',
        }),
      );
    }
    if (record.state === 'canceled' && root.consideredCancelled) return 'canceled';
    if (record.state === 'failed' || record.state === 'rejected') return 'failed';
    return 'completed';
  }

  /** The workflow's end: the task as its result, or FAILED or CANCELED with the task in the memo. */
  private end(run: AgentRun, ending: Ending): WireTask {
    const { record } = this;
    // Readable with no worker and no replay: the last events for streams that were open at the end,
    // and the final task when the workflow ends failed or canceled (it has no result then).
    const memo: Record<string, unknown> = {};
    if (hasPatch(PATCH.finalEventsMemo)) memo[FINAL_EVENTS_MEMO] = record.lastEvents();
    if (ending !== 'completed') memo[FINAL_TASK_MEMO] = record.boundedView();
    if (Object.keys(memo).length > 0) upsertMemo(memo);
    if (ending === 'canceled') {
      // Temporal shows CANCELED only if the workflow ends with the cancellation, even one the agent swallowed.
      throw run.kind === 'threw' && isCancellation(run.error)
        ? run.error
        : new CancelledFailure('Canceled from Temporal');
    }
    if (ending === 'failed') {
      throw ApplicationFailure.nonRetryable(
        record.statusText,
        record.state === 'rejected' ? 'TaskRejected' : 'TaskFailed',
      );
    }
    return record.boundedView();
  }
}

class CanceledBeforeStart extends Error {}

/**
 * The IDs of a new task: the gateway's, or for a Schedule's run (one input for every run) the task
 * ID its workflow ID names, so the gateway finds the task as any other, and a context of its own.
 */
function taskIds(input: TaskWorkflowInput): { taskId: string; contextId: string } {
  if (!('firstMessage' in input)) return input;
  const { workflowId } = workflowInfo();
  const taskId = taskIdOfWorkflow(workflowId);
  if (!taskId) {
    throw ApplicationFailure.nonRetryable(
      `Workflow ${workflowId} is no task's: start a task workflow with an ID made by workflowIdForTask`,
      'NotATaskWorkflowId',
    );
  }
  return { taskId, contextId: uuid4() };
}
