/**
 * `tasks unblock ID | --all`: resets a task the deployed code could not continue to its failed
 * workflow task (src/worker/unblock-tasks.ts), so that it goes on at once rather than at
 * Temporal's next retry; `--all`: every blocked task of the task queue. Reaches Temporal as
 * `setup` does. A worker does the same for its queue when it starts; this is for the tasks it left
 * (failed under its own build, or by workers still running old code) and for an operator's "now".
 */
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from '../command.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import type { Io } from '../io.js';
import { unblockQueue, unblockTask, type Unblock } from '../../worker/unblock-tasks.js';
import { commandTemporalSettings, connectTemporal, temporalError, temporalWhere } from './setup.js';

type UnblockCommand = Extract<Command, { kind: 'tasks unblock' }>;

const BY = 'a2a-temporal tasks unblock';

export async function runTasksUnblock(command: UnblockCommand, io: Io): Promise<ExitCode> {
  if ((command.id === undefined) === !command.all) throw new UsageError('Name one task ID, or --all (not both)');
  const settings = commandTemporalSettings(command, io.env);
  const where = temporalWhere(settings);
  const connection = await connectTemporal(settings);
  const client = new Client({ connection, namespace: settings.namespace });
  try {
    if (command.id === undefined) {
      const results = await unblockQueue(client, settings.taskQueue, { by: BY });
      if (results.length === 0) io.out(`No blocked tasks on task queue ${settings.taskQueue} at ${where}.`);
      for (const result of results) io.out(said(result));
    } else {
      io.out(said(await unblockTask(client, command.id, { by: BY })));
    }
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      throw new CliError(`No task ${command.id} on ${where}`, ExitCode.Remote);
    }
    throw temporalError(error, where);
  } finally {
    await connection.close();
  }
}

function said(result: Unblock): string {
  switch (result.outcome) {
    case 'unblocked':
      return (
        `Unblocked task ${result.taskId}: its workflow task had failed${result.failedUnder ? ` under build ${result.failedUnder}` : ''}; ` +
        `reset to that point (new run ${result.runId}), it goes on now if the code deployed can continue it.`
      );
    case 'not-blocked':
      return `Task ${result.taskId} is not blocked: nothing to do.`;
    case 'same-build':
      return `Task ${result.taskId} stays blocked: build ${result.failedUnder} failed it and would take it again.`;
  }
}
