/**
 * `check-deploy [CONFIG]`: replays the namespace's open tasks of the config's agents (or saved
 * histories) on the project's code as it is now, and exits 5 when any would break, so a pipeline
 * can refuse the deploy. Nothing in Temporal changes: histories are only read.
 */
import { Client } from '@temporalio/client';
import type { Command } from '../command.js';
import { loadConfig, type LoadedConfig } from '../../config/load-config.js';
import { describeDeployCheck } from '../../deploy-check/report.js';
import { readHistoryFiles } from '../../deploy-check/history-files.js';
import { replayOpenTaskHistories } from '../../deploy-check/replay-open-tasks.js';
import { replayTaskHistories, type DeployCheck } from '../../deploy-check/replay.js';
import { temporalSettings } from '../../temporal/connection.js';
import { grpcCode } from '../../temporal/grpc-code.js';
import { installTemporalRuntime } from '../../temporal/runtime.js';
import { logger } from '../../logging.js';
import { readSettings, type Settings } from '../../config/settings.js';
import { ExitCode, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { connectTemporal, temporalError, temporalWhere } from './setup.js';

type CheckDeployCommand = Extract<Command, { kind: 'check-deploy' }>;

export async function runCheckDeploy(command: CheckDeployCommand, io: Io): Promise<ExitCode> {
  // The replay worker logs each nondeterminism as a warning: the report says it better.
  const settings = readSettings(io.env);
  installTemporalRuntime({ log: logger.child({}, { level: 'error' }), level: settings.TEMPORAL_LOG_LEVEL });
  const config = await loadConfig(command.config);
  const { check, source } = command.histories
    ? { check: await replayFiles(config, command.histories), source: `the saved histories in ${command.histories}` }
    : await replayOpenTasks(config, command, settings);
  if (command.json) io.out(JSON.stringify({ source, ...check }));
  else io.out(describeDeployCheck(check, source).join('\n'));
  return check.broken.length > 0 ? ExitCode.WouldBreak : ExitCode.Ok;
}

async function replayFiles(config: LoadedConfig, path: string): Promise<DeployCheck> {
  const histories = await readHistoryFiles(path).catch((error: Error) => {
    throw new UsageError(`--histories ${path}: ${error.message}`);
  });
  return replayTaskHistories(config, histories);
}

async function replayOpenTasks(
  config: LoadedConfig,
  command: CheckDeployCommand,
  env: Settings,
): Promise<{ check: DeployCheck; source: string }> {
  const settings = temporalSettings(env, config.taskQueue ? { taskQueue: config.taskQueue } : {});
  const where = temporalWhere(settings);
  const connection = await connectTemporal(settings);
  try {
    const client = new Client({ connection, namespace: settings.namespace });
    const query = {
      taskQueue: settings.taskQueue,
      ...(command.sample !== undefined && { sample: command.sample }),
    };
    // Listing and fetching fail as Temporal calls; a bundle that does not build fails as itself.
    const check = await replayOpenTaskHistories(client, config, query).catch((error: unknown) => {
      throw grpcCode(error) === undefined ? error : temporalError(error, where);
    });
    const which = command.sample !== undefined ? `a sample of at most ${command.sample} of` : 'all';
    return { check, source: `${which} the open tasks on ${where}, task queue ${settings.taskQueue}` };
  } finally {
    await connection.close();
  }
}
