/**
 * `schedules list | pause | resume | trigger`: the config's scheduled tasks in Temporal (made by the
 * worker, src/schedules), reached as `setup` reaches Temporal. Only Schedules a2a-temporal manages.
 */
import { Client, type ScheduleDescription, type ScheduleHandle } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from '../command.js';
import { CliError, ExitCode } from '../errors.js';
import { dateTime } from '../format.js';
import type { Io } from '../io.js';
import { renderTable } from '../table.js';
import { taskIdOfWorkflow } from '../../protocol/contract.js';
import { managedScheduleHandle, managedSchedules, type ManagedSchedule } from '../../schedules/schedules.js';
import { commandTemporalSettings, connectTemporal, temporalError, temporalWhere } from './setup.js';

type SchedulesCommand = Extract<Command, { kind: `schedules ${string}` }>;

/** How long `trigger` looks for the run it asked for before saying it saw none. */
const TRIGGER_WAIT_MS = 5_000;

export async function runSchedules(command: SchedulesCommand, io: Io): Promise<ExitCode> {
  const settings = commandTemporalSettings(command, io.env);
  const where = temporalWhere(settings);
  const connection = await connectTemporal(settings);
  const client = new Client({ connection, namespace: settings.namespace });
  try {
    if (command.kind === 'schedules list') {
      list(await managedSchedules(client), command.json, where, io);
      return ExitCode.Ok;
    }
    const handle = await managedScheduleHandle(client, command.id);
    if (!handle) {
      throw new CliError(
        `No scheduled task "${command.id}" on ${where}: see a2a-temporal schedules list (a worker makes them from its config when it starts)`,
        ExitCode.Remote,
      );
    }
    switch (command.kind) {
      case 'schedules pause':
        await handle.pause(command.note ?? 'Paused with a2a-temporal schedules pause');
        io.out(`Paused schedule ${command.id}: no runs until a2a-temporal schedules resume ${command.id}.`);
        break;
      case 'schedules resume':
        await handle.unpause('Resumed with a2a-temporal schedules resume');
        io.out(`Resumed schedule ${command.id}.`);
        break;
      case 'schedules trigger': {
        const before = await handle.describe();
        // Triggered runs take the Schedule's own overlap policy (the SDK's default would allow all).
        await handle.trigger(before.policies.overlap);
        const started = await newRun(handle, lastRun(before));
        io.out(
          started
            ? `Triggered schedule ${command.id}: it started task ${taskIdOfWorkflow(started) ?? started}.`
            : `Triggered schedule ${command.id}, but no run started within ${TRIGGER_WAIT_MS / 1000} s: its overlap policy (${before.policies.overlap}) may have skipped it while a run is under way.`,
        );
        break;
      }
    }
    return ExitCode.Ok;
  } catch (error) {
    throw temporalError(error, where);
  } finally {
    await connection.close();
  }
}

function list(schedules: ManagedSchedule[], json: boolean, where: string, io: Io): void {
  const rows = schedules.map((schedule) => ({
    ...schedule,
    ...(schedule.lastRun && { lastTask: taskIdOfWorkflow(schedule.lastRun.workflowId) }),
  }));
  if (json) {
    io.out(JSON.stringify({ schedules: rows }));
    return;
  }
  if (rows.length === 0) {
    io.out(`No scheduled tasks on ${where}: a worker makes them from its config's \`schedules\` when it starts.`);
    return;
  }
  io.out(
    renderTable(
      ['ID', 'TASK QUEUE', 'AGENT', 'STATE', 'NEXT RUN', 'LAST TASK'],
      rows.map((row) => [
        row.id,
        row.taskQueue,
        row.agent,
        row.paused ? `paused${row.note ? ` (${row.note})` : ''}` : 'active',
        row.paused || !row.nextRun ? '-' : dateTime(row.nextRun),
        row.lastTask ?? '-',
      ]),
    ),
  );
}

/** The workflow ID of a run started after `previous` (the last run before); undefined when none comes within TRIGGER_WAIT_MS. */
async function newRun(handle: ScheduleHandle, previous: string | undefined): Promise<string | undefined> {
  const deadline = Date.now() + TRIGGER_WAIT_MS;
  while (Date.now() < deadline) {
    const last = lastRun(await handle.describe());
    if (last !== previous) return last;
    await sleep(250);
  }
  return undefined;
}

/** The workflow ID of the Schedule's latest run (Temporal keeps the last few, oldest first). */
function lastRun(description: ScheduleDescription): string | undefined {
  return description.info.recentActions.at(-1)?.action.workflow.workflowId;
}
