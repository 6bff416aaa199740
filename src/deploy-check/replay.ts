/**
 * Replays task histories on a project's current code, as a worker of that code would when the
 * tasks next move: a history the code no longer reproduces fails there with a nondeterminism
 * error, which here becomes a BrokenTask naming the first call that differs (divergence.ts). So
 * does a history the code replays but asks another question in: the answer the task waits for
 * would be taken for a question nobody was asked.
 */
import { fileURLToPath } from 'node:url';
import { Worker, type InjectedSinks, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { LoadedConfig } from '../config/load-config.js';
import { INTERRUPTED_STATES, type TaskStateName } from '../protocol/states.js';
import { tracingPlugins } from '../telemetry/tracing.js';
import { agentsReplayPlugin } from '../worker/agents-bundle.js';
import type { ApprovalDefaults } from '../workflows/approver-notifications.js';
import { describeDivergence } from './divergence.js';
import type { MadeCallsSinks, WorkflowCommand } from './made-calls-interceptors.js';
import type { TaskHistory } from './task-history.js';

/** The interceptor that hands the commands out of the replay (.ts in a checkout, .js in the built package). */
const MADE_CALLS_MODULE = fileURLToPath(
  new URL(`./made-calls-interceptors${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/** An open task the new code would fail to continue. */
export interface BrokenTask {
  /** The task's ID. */
  taskId: string;
  /** Its workflow's ID. */
  workflowId: string;
  /** Its agent. */
  agent: string;
  /** Its state, when the history says it. */
  state?: TaskStateName;
  /** What the code does where the history has something else, in the user's words (else Temporal's). */
  divergence: string;
}

/** What a replay found: which tasks the code as it is now would break. */
export interface DeployCheck {
  /** How many tasks were replayed. */
  replayed: number;
  /** Of those, how many waited for an answer. */
  waiting: number;
  /** The agents whose tasks were looked for (all of the config's). */
  agents: string[];
  /** The tasks the new code would fail, in the order they were replayed. */
  broken: BrokenTask[];
  /** Open tasks not replayed because Worker Versioning pins them to a version: how many, by version. */
  pinned?: Record<string, number>;
  /** How long the replay took. */
  durationMs: number;
}

/** What every replay may be given. */
export interface ReplayOptions {
  /**
   * The agents' workflow bundle when the caller has built it (e.g. to replay several times). Without
   * the check's interceptor in it, divergences are told from Temporal's errors alone (a reworded
   * question goes unnoticed, an inserted activity unnamed).
   */
  workflowBundle?: WorkflowBundleWithSourceMap;
}

/** What a replay needs of a config: the agents module to bundle (with its approval defaults), and the agents' names. */
export type ReplayedProject = Pick<LoadedConfig, 'agentsModule'> & {
  approvals?: ApprovalDefaults;
  agents: readonly { name: string }[];
};

export async function replayTaskHistories(
  config: ReplayedProject,
  histories: AsyncIterable<TaskHistory> | Iterable<TaskHistory>,
  options: ReplayOptions = {},
): Promise<DeployCheck> {
  const started = performance.now();
  // The SDK replays one history at a time and answers in their order: the first here is the one answered.
  const inReplay: TaskHistory[] = [];
  const made = new Map<string, WorkflowCommand[]>();
  const sinks: InjectedSinks<MadeCallsSinks> = {
    deployCheck: {
      commands: {
        fn: ({ workflowId }, commands) => {
          made.set(workflowId, [...(made.get(workflowId) ?? []), ...commands]);
        },
        callDuringReplay: true,
      },
    },
  };
  const broken: BrokenTask[] = [];
  let replayed = 0;
  let waiting = 0;
  const results = Worker.runReplayHistories(
    {
      ...(options.workflowBundle
        ? { workflowBundle: options.workflowBundle }
        : { interceptors: { workflowModules: [MADE_CALLS_MODULE] } }),
      sinks,
      // As the worker builds its bundle (create-worker.ts): the replay runs the code a worker would.
      plugins: [...tracingPlugins(), agentsReplayPlugin(config.agentsModule, config.approvals)],
    },
    announced(histories, (task) => inReplay.push(task)),
  );
  for await (const { error } of results) {
    const { history, ...task } = inReplay.shift()!;
    replayed++;
    if (task.state && INTERRUPTED_STATES.has(task.state)) waiting++;
    const failure = error && divergenceOf(error);
    const divergence = describeDivergence(history.events ?? [], failure, made.get(task.workflowId)) ?? failure;
    made.delete(task.workflowId);
    if (divergence) broken.push({ ...task, divergence });
  }
  return {
    replayed,
    waiting,
    agents: config.agents.map((agent) => agent.name),
    broken,
    durationMs: Math.round(performance.now() - started),
  };
}

/** The histories as the replay takes them, telling `announce` of each task first. */
async function* announced(
  histories: AsyncIterable<TaskHistory> | Iterable<TaskHistory>,
  announce: (task: TaskHistory) => void,
): AsyncGenerator<{ workflowId: string; history: TaskHistory['history'] }> {
  for await (const task of histories) {
    announce(task);
    yield { workflowId: task.workflowId, history: task.history };
  }
}

/**
 * Temporal's own words for the divergence ("[TMPRL1100] Nondeterminism error: Activity type of
 * scheduled event 'a' does not match activity type of activity command 'b'"): the SDK wraps them in
 * an explanation of replay and, for a failed activation, in the core's debug print of the failure.
 */
function divergenceOf(error: Error): string {
  const details = /Details: ([\s\S]*)$/.exec(error.message)?.[1] ?? error.message;
  const failure = /message: "((?:[^"\\]|\\.)*)"/.exec(details)?.[1];
  return (failure?.replace(/\\(.)/g, '$1') ?? details).trim();
}
