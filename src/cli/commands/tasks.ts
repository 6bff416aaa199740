/** `tasks list`, `tasks show`, `tasks cancel` (`tasks reply` shares send.ts). */
import { ListTasksRequest, ListTasksResponse, Task, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import type { Command } from '../command.js';
import { connectAgent } from '../client.js';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { CliError, ExitCode, toCliError, UsageError } from '../errors.js';
import { servedAgents } from '../served-agents.js';
import { atTaskAgent } from '../task-agent.js';
import { shellWord, taskStateName } from '../format.js';
import type { Io } from '../io.js';
import { toWireState } from '../../protocol/states.js';
import { taskListView, type AgentTaskPage } from '../task-list-view.js';
import { taskView, type ViewOptions } from '../views.js';

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
  // Without --agent, every agent the gateway serves (a gateway that does not list them: its default agent).
  const everyAgent = command.agent === undefined ? await servedAgents(command.gateway) : undefined;
  const agents = everyAgent ?? [command.agent];
  if (command.pageToken && agents.length > 1) {
    throw new UsageError('A page token continues one agent\'s list: add the --agent that its "More:" line names');
  }
  const listed = await Promise.all(
    agents.map(async (agent) => {
      try {
        return {
          agent,
          page: await call(command, async () => (await connectAgent(command.gateway, agent)).listTasks(request)),
        };
      } catch (error) {
        // An agent that serves only clients of an extension this CLI does not speak has no list for it.
        if (!everyAgent || !(error instanceof CliError && error.code === A2A_ERROR_CODE.EXTENSION_SUPPORT_REQUIRED))
          throw error;
        io.err(`Left out agent ${agent}: ${error.message}`);
        return undefined;
      }
    }),
  );
  const pages = listed.filter((page) => page !== undefined);
  if (command.json) io.out(JSON.stringify(listingJson(pages)));
  else {
    const options = {
      ...viewOptions(command, io),
      everyAgent: everyAgent !== undefined,
      filters: listFilters(command),
    };
    io.out(taskListView(pages, options));
  }
  return ExitCode.Ok;
}

/**
 * One agent's page as ListTasksResponse JSON; several agents' as one `tasks` list, their totals
 * summed and each agent's next page token by name. proto3 JSON leaves an empty list out; scripts
 * read `tasks` whatever the count.
 */
function listingJson(pages: readonly AgentTaskPage[]): object {
  if (pages.length === 1) return { tasks: [], ...(ListTasksResponse.toJSON(pages[0]!.page) as object) };
  return {
    tasks: pages.flatMap(({ page }) => page.tasks.map((task) => Task.toJSON(task))),
    totalSize: pages.reduce((sum, { page }) => sum + page.totalSize, 0),
    nextPageTokens: Object.fromEntries(
      pages.filter(({ page }) => page.nextPageToken).map(({ agent, page }) => [agent, page.nextPageToken]),
    ),
  };
}

export async function runTasksShow(command: TasksCommand<'tasks show'>, io: Io): Promise<ExitCode> {
  const task = await atTaskAgent(command.agent, (agent) =>
    call(command, async () =>
      (await connectAgent(command.gateway, agent)).getTask({
        tenant: '',
        id: command.id,
        ...(command.historyLength !== undefined && { historyLength: command.historyLength }),
      }),
    ),
  );
  io.out(command.json ? JSON.stringify(Task.toJSON(task)) : taskView(task, viewOptions(command, io)));
  return ExitCode.Ok;
}

export async function runTasksCancel(command: TasksCommand<'tasks cancel'>, io: Io): Promise<ExitCode> {
  const task = await atTaskAgent(command.agent, (agent) =>
    call(command, async () =>
      (await connectAgent(command.gateway, agent)).cancelTask({
        tenant: '',
        id: command.id,
        // The gateway records who canceled in the timeline.
        metadata: command.responder ? { responder: command.responder } : undefined,
      }),
    ),
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

/** The filters to repeat with a page token (it only continues the query it came from); the view adds the agent. */
function listFilters(command: TasksCommand<'tasks list'>): string {
  const parts: string[] = [];
  if (command.state) parts.push(`--state ${command.state}`);
  if (command.contextId) parts.push(`--context ${shellWord(command.contextId)}`);
  if (command.pageSize !== undefined) parts.push(`--page-size ${command.pageSize}`);
  return parts.join(' ');
}

export function viewOptions(command: { gateway: { url: string } }, io: Io): ViewOptions {
  return { now: io.now(), gatewayUrl: command.gateway.url, ...(io.columns !== undefined && { columns: io.columns }) };
}
