/**
 * When this worker fails a task's workflow task for nondeterminism (its code cannot continue the
 * task: a deploy without `ctx.patched`), it says where its code parts from the task's history in the
 * user's words, as `check-deploy` does: it replays the history on its own agents module with the
 * deploy check's made-calls interceptor (deploy-check/replay.ts), which names what Temporal's message
 * cannot (an activity inserted before a question: "Activity machine does not handle this event").
 * It logs that at warn with the task ID (the alert: this worker's code breaks waiting tasks) and
 * signals it to the task's run (DIVERGENCE_SIGNAL), where the Temporal UI shows it and the gateway's
 * blocked marker reads it. Once per build and run (replicas of one build failing a task at the same
 * moment may each say it once): a run whose history holds this build's words since its last
 * completed workflow task is left alone (the signal itself makes Temporal retry the
 * workflow task at once, which fails again: see DIVERGENCE_SIGNAL).
 *
 * Temporal's own WorkflowTaskFailed message stays Temporal's: Core finds the divergence after the
 * workflow code has run, and reports the failure itself; the worker's code never sees the history
 * it replays, so it cannot fail the workflow task first with words of its own.
 */
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIVERGENCE_SIGNAL, taskIdOfWorkflow, type DivergenceReport } from '../protocol/contract.js';
import { buildOfFailure, latestEvents, lastFailure, reportedDivergence } from '../tasks/blocked.js';
import { quote } from '../tasks/visibility.js';
import { replayTaskHistories, type ReplayedProject } from '../deploy-check/replay.js';
import type { TaskHistory } from '../deploy-check/task-history.js';
import { EvictionReason, workflowEvictions } from '../temporal/sdk-internals.js';
import { logger } from '../logging.js';

const log = logger.child({ component: 'worker' });

/** Core reports the failure as it evicts the run: its event may follow the eviction by a moment. */
const FAILURE_READS = 5;
const FAILURE_READ_GAP_MS = 200;
/** Runs remembered as explained (a run's ID is never reused; a reset makes a new one). */
const EXPLAINED_KEPT = 10_000;

/** Listens for the worker's nondeterminism evictions and reports each failed task's divergence (see above). */
export function reportDivergences(worker: Worker, project: ReplayedProject): void {
  const { client } = worker;
  if (!client) return;
  const { workerDeploymentOptions, buildId } = worker.options;
  const reporter = new DivergenceReporter(client, project, workerDeploymentOptions?.version?.buildId ?? buildId);
  workflowEvictions(worker).on('eviction', ({ runId, evictJob }) => {
    if (evictJob.reason === EvictionReason.NONDETERMINISM) reporter.heard(runId);
  });
}

/** A failed run to explain, and its task. */
interface FailedRun {
  task: Omit<TaskHistory, 'history'>;
  runId: string;
}

/**
 * Reports runs one batch at a time: one replay (one bundle of the agents) for all the runs failed
 * meanwhile, as when a deploy breaks many waiting tasks at once.
 */
class DivergenceReporter {
  private readonly heardRuns = new Set<string>();
  /**
   * The runs this worker has explained, newest last: their later failures are left alone without a
   * look at their history, which does not show the signal while Temporal holds it back (a signal
   * that comes while a workflow task runs is written to history only once that task ends).
   */
  private readonly explained = new Set<string>();
  private draining?: Promise<void>;

  constructor(
    private readonly client: Client,
    private readonly project: ReplayedProject,
    private readonly buildId: string | undefined,
  ) {}

  heard(runId: string): void {
    if (this.explained.has(runId)) return;
    this.heardRuns.add(runId);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    while (this.heardRuns.size > 0) {
      // A run explained while it waited here: its history may not show the signal yet (below).
      const runIds = [...this.heardRuns].filter((runId) => !this.explained.has(runId));
      this.heardRuns.clear();
      await this.report(runIds).catch((error: unknown) =>
        log.warn({ err: error, runIds }, 'could not say why tasks are blocked'),
      );
    }
  }

  private async report(runIds: string[]): Promise<void> {
    const failed = (await Promise.all(runIds.map((runId) => this.unexplained(runId)))).filter(
      (run) => run !== undefined,
    );
    if (failed.length === 0) return;
    const histories = await Promise.all(
      failed.map(async ({ task, runId }) => ({
        ...task,
        history: await this.client.workflow.getHandle(task.workflowId, runId).fetchHistory(),
      })),
    );
    const { broken } = await replayTaskHistories(this.project, histories);
    for (const run of failed) {
      const reason = broken.find((task) => task.workflowId === run.task.workflowId)?.divergence;
      // The replay passed: the failure was not this code's (another build failed it meanwhile).
      if (!reason) continue;
      const report: DivergenceReport = {
        reason,
        ...(this.buildId && { buildId: this.buildId }),
      };
      log.warn(
        { taskId: run.task.taskId, agent: run.task.agent, runId: run.runId, reason, buildId: this.buildId },
        'task blocked: this worker cannot continue it',
      );
      this.remember(run.runId);
      await this.client.workflow.getHandle(run.task.workflowId, run.runId).signal(DIVERGENCE_SIGNAL, report);
    }
  }

  private remember(runId: string): void {
    this.explained.add(runId);
    // A Set iterates in insertion order: the oldest goes first.
    if (this.explained.size > EXPLAINED_KEPT) this.explained.delete(this.explained.values().next().value!);
  }

  /** The task of a failed run, unless this build's words already explain its failure. */
  private async unexplained(runId: string): Promise<FailedRun | undefined> {
    for await (const row of this.client.workflow.list({ query: `RunId = ${quote(runId)}` })) {
      const taskId = taskIdOfWorkflow(row.workflowId);
      if (!taskId) return undefined;
      for (let read = 1; read <= FAILURE_READS; read++) {
        const events = await latestEvents(this.client, taskId, runId);
        const failure = lastFailure(events);
        if (failure) {
          const explained =
            buildOfFailure(failure, events) === this.buildId &&
            (await reportedDivergence(this.client, events, failure));
          return explained ? undefined : { task: { workflowId: row.workflowId, taskId, agent: row.type }, runId };
        }
        await sleep(FAILURE_READ_GAP_MS);
      }
      return undefined;
    }
    return undefined;
  }
}
