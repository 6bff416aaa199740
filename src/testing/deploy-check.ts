/**
 * Deploy safety from code: would the project's code as it is now break the tasks already under way?
 * Their histories (from Temporal, or saved as files) are replayed on the new code's workflow bundle,
 * as a worker of that code would replay them when they next move. `a2a-temporal check-deploy` does
 * the same from the command line.
 */
import type { Client } from '@temporalio/client';
import { loadConfig } from '../config/load-config.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/contract.js';
import { readHistoryFiles } from '../deploy-check/history-files.js';
import { replayOpenTaskHistories } from '../deploy-check/replay-open-tasks.js';
import { replayTaskHistories, type DeployCheck, type ReplayOptions } from '../deploy-check/replay.js';
import { quietLogs } from './test-logs.js';
import { readSettings } from '../config/settings.js';

export { describeDeployCheck } from '../deploy-check/report.js';
export { saveTaskHistory } from '../deploy-check/history-files.js';
export type { BrokenTask, DeployCheck, ReplayOptions } from '../deploy-check/replay.js';

/** Which open tasks {@link replayOpenTasks} replays, and on which code. */
export interface ReplayOpenTasksOptions extends ReplayOptions {
  /** A client on the namespace whose tasks to check (production's, in a deploy pipeline). */
  client: Client;
  /** Config file, or a folder holding one. Default: the current folder. */
  config?: string;
  /** Task queue of the project's workers. Default: A2A_TASK_QUEUE, else the config's, else 'a2a-temporal'. */
  taskQueue?: string;
  /** Replay at most this many tasks, those waiting for input first. Default: all. */
  sample?: number;
}

/**
 * Replays the open tasks of the config's agents on the config's code as it is now: what
 * `a2a-temporal check-deploy` does.
 *
 * @example
 * const check = await replayOpenTasks({ client, sample: 100 });
 * if (check.broken.length > 0) throw new Error(describeDeployCheck(check, 'production').join('\n'));
 */
export async function replayOpenTasks(options: ReplayOpenTasksOptions): Promise<DeployCheck> {
  // A test's entrypoint: the test process's environment, read once.
  const settings = readSettings(process.env);
  quietLogs(settings);
  const config = await loadConfig(options.config);
  const taskQueue = options.taskQueue ?? (settings.A2A_TASK_QUEUE || config.taskQueue || DEFAULT_TASK_QUEUE);
  const query = { taskQueue, ...(options.sample !== undefined && { sample: options.sample }) };
  return replayOpenTaskHistories(options.client, config, query, options);
}

/** Which saved histories {@link replayHistoryFiles} replays, and on which code. */
export interface ReplayHistoryFilesOptions extends ReplayOptions {
  /** A history's `.json` file, or a folder of them. */
  histories: string;
  /** Config file, or a folder holding one. Default: the current folder. */
  config?: string;
}

/**
 * Replays saved histories (from {@link saveTaskHistory}, `temporal workflow show --output json` or the
 * Temporal UI's download) on the config's code as it is now, without a server.
 *
 * @example
 * it('keeps the recorded waiting tasks working', async () => {
 *   const check = await replayHistoryFiles({ histories: 'test/histories' });
 *   expect(check.broken).toEqual([]);
 * });
 */
export async function replayHistoryFiles(options: ReplayHistoryFilesOptions): Promise<DeployCheck> {
  quietLogs(readSettings(process.env));
  const config = await loadConfig(options.config);
  return replayTaskHistories(config, await readHistoryFiles(options.histories), options);
}
