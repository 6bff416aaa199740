/**
 * The A2A task workflow: one execution per task. It waits for the first message, runs the agent
 * inside a cancellation scope, settles the task in exactly one terminal state, and continues as
 * new while the agent waits for a human once Temporal suggests it.
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
  setWorkflowOptions,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import { FINAL_EVENTS_MEMO, FINAL_TASK_MEMO, type TaskWorkflowInput } from '../protocol/contract.js';
import { VERSIONING_BEHAVIORS } from '../protocol/versioning.js';
import type { WireTask } from '../protocol/wire.js';
import { AgentFailure, type AgentDefinition, type AgentResult } from './agent-api.js';
import { AgentJournal } from './agent-journal.js';
import { TaskRejection, WAITING_STEPS, agentMessage, createAgentContext } from './agent-context.js';
import { TaskRecord } from './task-record.js';
import { TaskRuntime } from './task-runtime.js';
import { hasPatch, PATCH, recordRelease, settlesWithoutConditionRounds } from './task-patches.js';

/** How long a task canceled through A2A waits for the gateway's Temporal cancellation before ending anyway. */
const TEMPORAL_CANCEL_GRACE = '1 minute';

/** How the workflow ends in Temporal: with the task as its result, FAILED, or CANCELED. */
type Ending = 'completed' | 'failed' | 'canceled';

type AgentRun = { kind: 'returned'; result: AgentResult } | { kind: 'threw'; error: unknown } | { kind: 'continue' };

export function createTaskWorkflow(agents: readonly AgentDefinition[]) {
  const byName = new Map(agents.map((agent) => [agent.name, agent]));

  const taskWorkflow = async function taskWorkflow(input: TaskWorkflowInput): Promise<WireTask> {
    recordRelease();
    const agentName = workflowInfo().workflowType;
    const agent = byName.get(agentName);
    if (!agent) {
      throw ApplicationFailure.nonRetryable(
        `No agent named "${agentName}" is registered on this worker`,
        'UnknownAgent',
      );
    }
    const root = CancellationScope.current();
    const now = () => new Date().toISOString();
    const record = input.carried
      ? TaskRecord.restore(input.carried.task, now)
      : TaskRecord.create({ taskId: input.taskId, contextId: input.contextId, agent: agentName }, now);
    if (agent.pushEvents) record.selectPushEvents(agent.pushEvents);
    const runtime = new TaskRuntime(record);
    const journal = new AgentJournal(input.carried?.journal);
    runtime.registerHandlers();
    runtime.push.resume();
    runtime.approvers.resume();
    if (input.carried) runtime.publishDetails();
    else runtime.publish();

    let run: AgentRun;
    try {
      await condition(() => runtime.firstMessage !== undefined || runtime.cancelRequest !== undefined);
      run = runtime.cancelRequest ? { kind: 'threw', error: new CanceledBeforeStart() } : await runAgent();
    } catch (error) {
      run = { kind: 'threw', error };
    }
    if (run.kind === 'continue') {
      return continueAsNew<(input: TaskWorkflowInput) => Promise<WireTask>>({
        taskId: record.id,
        contextId: record.contextId,
        carried: { task: record.snapshot(), journal: journal.entries() },
      });
    }

    const canceledByTemporal = root.consideredCancelled;
    await CancellationScope.nonCancellable(async () => {
      settle(run);
      await condition(allHandlersFinished);
      // The terminal notification too: the workflow stays open until its webhooks have it (or gave up).
      // And its approvers hear how their question ended (approver-notifications.ts): idle at once without notices.
      const idle = () => runtime.push.idle && runtime.approvers.idle;
      if (!settlesWithoutConditionRounds() || !idle()) await condition(idle);
    });
    // Temporal's own status tells the A2A outcome in the UI's list and its Failures count; workflows
    // that started before this change end as they always did.
    const ending: Ending = hasPatch(PATCH.temporalStatusForOutcome)
      ? await endingForOutcome()
      : canceledByTemporal
        ? 'canceled'
        : 'completed';
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

    /**
     * FAILED for a failed or rejected task, CANCELED for a canceled one. The TS SDK ends a workflow
     * CANCELED only when Temporal itself asked it to cancel, so an A2A CancelTask is followed by
     * Temporal's cancellation: the gateway requests it once the `cancel` update has completed (see
     * src/gateway/task-workflows/task-workflows.ts). The update has already stopped the agent's work; here the
     * workflow stays open until that request arrives, so it cannot close COMPLETED before it. The
     * wait is bounded: if the request never comes (the gateway died in between, or an operator sent
     * the update by hand), the task is still canceled and the workflow ends COMPLETED as before.
     */
    async function endingForOutcome(): Promise<Ending> {
      if (runtime.cancelRequest && !root.consideredCancelled) {
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

    async function runAgent(): Promise<AgentRun> {
      const scope = new CancellationScope();
      runtime.agentScope = scope;
      const work: Promise<AgentRun> = scope
        .run(async () => {
          if (record.state === 'submitted') runtime.changeState('working', { by: 'agent' });
          return agent!.run(createAgentContext(runtime, journal, runtime.firstMessage!));
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
          void runtime.firstReplyWait.then(continueWhenReady).then(resolve, (error: unknown) => {
            resolve({ kind: 'threw', error });
          });
        });
      }
      // Before release 2 (task-patches.ts): the agent's work races a continue-as-new watch from its start.
      for (;;) {
        // Not cancellable: a cancel must reach the agent's work and wait for it to stop, not cut this race short.
        const continueSuggested = CancellationScope.nonCancellable(() => condition(readyToContinueAsNew));
        const next = await Promise.race([work, continueSuggested.then((): AgentRun => ({ kind: 'continue' }))]);
        if (next.kind !== 'continue') return next;
        await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
        if (readyToContinueAsNew()) return next;
      }
    }

    /** Continue-as-new once Temporal suggests it, the agent waits for a human, and no handler runs. */
    async function continueWhenReady(): Promise<AgentRun> {
      for (;;) {
        // Not cancellable: a cancel must reach the agent's work and wait for it to stop, not end this watch.
        await CancellationScope.nonCancellable(() => condition(readyToContinueAsNew));
        await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
        if (readyToContinueAsNew()) return { kind: 'continue' };
      }
    }

    /** Only while the agent waits for a human and nothing else is under way. */
    function readyToContinueAsNew(): boolean {
      return (
        workflowInfo().continueAsNewSuggested &&
        (record.state === 'input-required' || record.state === 'auth-required') &&
        runtime.waiter !== undefined &&
        runtime.waiter.reply === undefined &&
        runtime.cancelRequest === undefined &&
        !root.consideredCancelled &&
        runtime.push.idle &&
        runtime.approvers.idle &&
        journal.onlyWaitingOn(WAITING_STEPS)
      );
    }

    function settle(outcome: AgentRun): void {
      if (outcome.kind === 'continue') return;
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
      if (outcome.kind === 'returned') return complete(outcome.result);
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
      log.error('Agent failed', { error, taskId: record.id });
      runtime.changeState('failed', { message: agentMessage(runtime, safeMessage), by: 'agent' });
    }

    function complete(result: AgentResult): void {
      const reply = typeof result === 'string' ? { text: result } : (result ?? {});
      const parts = reply.parts ?? (reply.text !== undefined ? [{ text: reply.text }] : []);
      const message = parts.length > 0 ? { ...agentMessage(runtime, ''), parts } : undefined;
      if (reply.asMessage && message) record.respondWithMessage(message);
      runtime.changeState('completed', { ...(message && !reply.asMessage && { message }), by: 'agent' });
    }
  };
  // Under Worker Versioning the agent's own behaviour, else the worker's default. A worker without a
  // deployment version fails the workflow task of a workflow that names a behaviour: name none there.
  setWorkflowOptions(() => {
    const { workflowType, currentDeploymentVersion } = workflowInfo();
    const versioning = byName.get(workflowType)?.versioning;
    return versioning && currentDeploymentVersion?.deploymentName
      ? { versioningBehavior: VERSIONING_BEHAVIORS[versioning] }
      : {};
  }, taskWorkflow);
  return taskWorkflow;
}

class CanceledBeforeStart extends Error {}
