/** `tasks list`, `tasks show`, `tasks cancel` (`tasks reply` shares send.ts). */
import { ListTasksRequest, ListTasksResponse, Task, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import type { Command } from '../args.js';
import { connectAgent } from '../client.js';
import { ExitCode, toCliError } from '../errors.js';
import { shellWord, taskStateName } from '../format.js';
import type { Io } from '../io.js';
import { toWireState } from '../../protocol/states.js';
import { taskListView, taskView, type ViewOptions } from '../views.js';

type TasksCommand<K extends Command['kind']> = Extract<Command, { kind: K }>;

export async function runTasksList(command: TasksCommand<'tasks list'>, io: Io): Promise<ExitCode> {
  const request = ListTasksRequest.fromJSON({
    ...(command.contextId && { contextId: command.contextId }),
    ...(command.pageSize !== undefined && { pageSize: command.pageSize }),
    ...(command.pageToken && { pageToken: command.pageToken }),
    // History makes every row heavy; `tasks show` is where it is read.
    historyLength: 0,
  });
  if (command.state) request.status = taskStateFromJSON(toWireState(command.state));
  else request.status = TaskState.TASK_STATE_UNSPECIFIED;
  const page = await call(command, async () => (await connectAgent(command.gateway, command.agent)).listTasks(request));
  if (command.json) {
    // proto3 JSON leaves an empty list out; scripts read `tasks` whatever the count.
    io.out(JSON.stringify({ tasks: [], ...(ListTasksResponse.toJSON(page) as object) }));
  } else {
    const agent = command.agent ?? "the gateway's default agent";
    io.out(taskListView(page, { ...viewOptions(command, io), agent, filters: listFilters(command) }));
  }
  return ExitCode.Ok;
}

export async function runTasksShow(command: TasksCommand<'tasks show'>, io: Io): Promise<ExitCode> {
  const task = await call(command, async () =>
    (await connectAgent(command.gateway, command.agent)).getTask({
      tenant: '',
      id: command.id,
      ...(command.historyLength !== undefined && { historyLength: command.historyLength }),
    }),
  );
  io.out(command.json ? JSON.stringify(Task.toJSON(task)) : taskView(task, viewOptions(command, io)));
  return ExitCode.Ok;
}

export async function runTasksCancel(command: TasksCommand<'tasks cancel'>, io: Io): Promise<ExitCode> {
  const task = await call(command, async () =>
    (await connectAgent(command.gateway, command.agent)).cancelTask({
      tenant: '',
      id: command.id,
      // The gateway records who canceled in the timeline.
      metadata: command.responder ? { responder: command.responder } : undefined,
    }),
  );
  if (command.json) io.out(JSON.stringify(Task.toJSON(task)));
  else io.out(`Task ${task.id} is ${taskStateName(task)}.`);
  return ExitCode.Ok;
}

async function call<T>(command: { gateway: { url: string } }, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw toCliError(error, { gatewayUrl: command.gateway.url });
  }
}

/** The filters to repeat with a page token (it only continues the query it came from). */
function listFilters(command: TasksCommand<'tasks list'>): string {
  const parts: string[] = [];
  if (command.agent) parts.push(`--agent ${shellWord(command.agent)}`);
  if (command.state) parts.push(`--state ${command.state}`);
  if (command.contextId) parts.push(`--context ${shellWord(command.contextId)}`);
  if (command.pageSize !== undefined) parts.push(`--page-size ${command.pageSize}`);
  return parts.join(' ');
}

export function viewOptions(command: { gateway: { url: string } }, io: Io): ViewOptions {
  return { now: io.now(), gatewayUrl: command.gateway.url, ...(io.columns !== undefined && { columns: io.columns }) };
}
