/**
 * `dev`'s deploy check on a save: before the worker switches to the saved code, the tasks waiting
 * in the dev database (input-required, auth-required) are replayed on that code, as the new worker
 * would replay them once answered. Those it would fail with a nondeterminism error (or ask another
 * question) are named in the console with the call that differs and what to do, so the author
 * learns it in the minute they make the change.
 *
 * Cheap when nothing waits: one visibility count, no bundle. The replay bundles the agents module
 * from the files on disk (webpack), never from this process's import cache, which holds the agents
 * as they were when the dev command started. Advisory only: whatever happens, the reload goes on.
 */
import { Client, Connection } from '@temporalio/client';
import { openTaskHistories, waitingTasksQuery } from '../deploy-check/open-tasks.js';
import { replayTaskHistories, type BrokenTask, type DeployCheck } from '../deploy-check/replay.js';
import { temporalSettings } from '../temporal/connection.js';
import type { ServeReady } from './serve-process.js';
import type { Settings } from '../config/settings.js';

/** A check that takes longer than this is given up (with a note): the reload does not wait for ever. */
const CHECK_TIMEOUT_MS = 60_000;
/** Tasks named one by one in the warning; the rest are counted. */
const LISTED_TASKS = 5;

export interface WaitingTasksCheckOptions {
  /** The child that serves the code before the save: its agents, task queue and agents module. */
  previous: ServeReady;
  /** The settings of the worker (its Temporal connection). */
  settings: Settings;
  /** Where discarding the tasks is done by hand: the UI, the CLI as the user types it (temporalCliCommand), the database. */
  uiUrl?: string;
  temporalCli?: string;
  dbFile?: string;
  print: (text: string) => void;
}

/**
 * Replays the waiting tasks of the previous child's agents on the code on disk and prints which
 * would break. Never throws: a failure of the check is one line in the console.
 */
export async function checkWaitingTasks(options: WaitingTasksCheckOptions): Promise<DeployCheck | undefined> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS);
  });
  const checking = replayWaitingTasks(options);
  checking.catch(() => {}); // Reported below, or ignored once given up.
  try {
    const outcome = await Promise.race([checking, timedOut]);
    if (outcome === 'timeout') {
      options.print(
        `(Could not check the waiting tasks against the change: no answer in ${CHECK_TIMEOUT_MS / 1000} s; reloading anyway.)\n`,
      );
      return undefined;
    }
    const elapsedMs = performance.now() - started;
    if (outcome && outcome.broken.length > 0) options.print(describeBrokenTasks(outcome, elapsedMs, options));
    else if (outcome) {
      const tasks = outcome.replayed === 1 ? 'the 1 task' : `the ${outcome.replayed} tasks`;
      options.print(
        `Replayed ${tasks} waiting in the dev database on the change (${seconds(elapsedMs)}): none breaks.\n`,
      );
    }
    return outcome;
  } catch (error) {
    const message = ((error as Error).message ?? String(error)).split('\n')[0];
    options.print(`(Could not check the waiting tasks against the change: ${message}; reloading anyway.)\n`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** The replay of the waiting tasks, or undefined when none waits (after one visibility count). */
async function replayWaitingTasks(options: WaitingTasksCheckOptions): Promise<DeployCheck | undefined> {
  const { previous } = options;
  const settings = temporalSettings(options.settings, { taskQueue: previous.taskQueue });
  const connection = await Connection.connect({ ...settings.connection, connectTimeout: '5 seconds' });
  try {
    const client = new Client({ connection, namespace: previous.namespace });
    const query = {
      agents: previous.agents.map((agent) => agent.name),
      taskQueue: previous.taskQueue,
      waitingOnly: true,
    };
    const { count } = await client.workflow.count(waitingTasksQuery(query));
    if (count === 0) return undefined;
    const project = { agentsModule: previous.agentsModule, agents: previous.agents };
    return await replayTaskHistories(project, openTaskHistories(client, query));
  } finally {
    await connection.close();
  }
}

/** The warning: which waiting tasks the saved code breaks, where they diverge, and the two ways out. */
export function describeBrokenTasks(
  check: DeployCheck,
  elapsedMs: number,
  where: Pick<WaitingTasksCheckOptions, 'uiUrl' | 'temporalCli' | 'dbFile' | 'previous'>,
): string {
  const { broken } = check;
  const tasks = broken.length === 1 ? '1 task' : `${broken.length} tasks`;
  const listed = broken.slice(0, LISTED_TASKS);
  const discard = [
    ...(where.uiUrl ? [`in the Temporal UI (${where.uiUrl}: the task's workflow, Terminate), or`] : []),
    // Without a CLI to type (the SDK downloaded the one dev runs), the UI and the database remain.
    ...(where.temporalCli
      ? [
          ...listed.map(
            (task) =>
              `  ${where.temporalCli} workflow terminate --address ${where.previous.temporalAddress} --namespace ${where.previous.namespace} --workflow-id ${task.workflowId}`,
          ),
          ...(broken.length > listed.length ? [`  (and so on for the other ${broken.length - listed.length})`] : []),
        ]
      : []),
    ...(where.dbFile ? [`or stop dev (Ctrl-C) and delete ${where.dbFile} to start again with no tasks at all.`] : []),
  ];
  return [
    '',
    `WARNING: this change breaks ${tasks} waiting in the dev database (checked in ${seconds(elapsedMs)}):`,
    'the new code does not make the calls their histories recorded, so once answered they fail with a',
    'nondeterminism error and stay stuck (or, for a reworded question, take the answer to the old one).',
    ...byAgent(broken).flatMap(([agent, agentTasks]) => [
      `  ${agent}: ${agentTasks
        .slice(0, LISTED_TASKS)
        .map((task) => `${task.taskId}${task.state ? ` (${task.state})` : ''}`)
        .join(', ')}${agentTasks.length > LISTED_TASKS ? ` and ${agentTasks.length - LISTED_TASKS} more` : ''}`,
      `    first divergence (task ${agentTasks[0]!.taskId}): ${agentTasks[0]!.divergence}`,
    ]),
    'What to do, either:',
    '  - guard the change so that tasks started before it keep the old path, and save again:',
    "      if (ctx.patched('my-change')) { /* new code */ } else { /* old code */ }",
    "    (ctx.patched from the agent's context, not patched() from @temporalio/workflow);",
    '  - or discard these development tasks: terminate them',
    ...discard.map((line) => `    ${line}`),
    '    (`a2a-temporal tasks cancel` would not end them: cancelling runs the new code, which cannot replay them.)',
    'Reloading with the change as it is.',
    '',
  ].join('\n');
}

function byAgent(broken: BrokenTask[]): [string, BrokenTask[]][] {
  const agents = new Map<string, BrokenTask[]>();
  for (const task of broken) agents.set(task.agent, [...(agents.get(task.agent) ?? []), task]);
  return [...agents];
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
