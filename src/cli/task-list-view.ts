/**
 * `tasks list`: one row per task of one agent, or of every agent the gateway serves (then with an
 * agent column), who may answer the tasks that wait, and how to get each agent's next page.
 */
import type { ListTasksResponse, Task } from '@a2a-js/sdk';
import type { QuestionView } from '../protocol/question.js';
import { isInterrupted } from '../protocol/states.js';
import {
  agentOf,
  commandHint,
  dateTime,
  messageText,
  openQuestionsOf,
  plural,
  shellWord,
  taskState,
  taskStateName,
} from './format.js';
import { oneLine, renderTable } from './table.js';
import { tableOptions, type ViewOptions } from './views.js';

/** One agent's page; no agent: the gateway's default agent (a gateway that does not list its agents). */
export interface AgentTaskPage {
  agent?: string | undefined;
  page: ListTasksResponse;
}

export interface TaskListViewOptions extends ViewOptions {
  /** Whether the pages are every agent's (not one agent's asked for by name). */
  everyAgent?: boolean;
  /** The filters to repeat with a page token (it only continues the query it came from). */
  filters?: string;
}

export function taskListView(pages: readonly AgentTaskPage[], options: TaskListViewOptions): string {
  const whose = whoseTasks(pages, options.everyAgent ?? false);
  const rows = pages.flatMap(({ agent, page }) =>
    page.tasks.map((task) => ({ task, agent: agentOf(task) ?? agent ?? '' })),
  );
  // One agent's page comes in the gateway's order; several are merged, the latest change first.
  if (pages.length > 1) rows.sort((a, b) => updatedAt(b.task).localeCompare(updatedAt(a.task)));
  if (rows.length === 0) return `No tasks found for ${whose}.`;
  const withAgent = options.everyAgent === true;
  const withAnswerers = rows.some(({ task }) => isWaiting(task));
  const headers = [
    'TASK ID',
    ...(withAgent ? ['AGENT'] : []),
    'STATE',
    'UPDATED',
    ...(withAnswerers ? ['MAY ANSWER'] : []),
    'MESSAGE',
  ];
  const cells = rows.map(({ task, agent }) => [
    task.id,
    ...(withAgent ? [agent] : []),
    taskStateName(task),
    dateTime(task.status?.timestamp),
    ...(withAnswerers ? [mayAnswer(task)] : []),
    oneLine(messageText(task.status?.message)),
  ]);
  const lines = [renderTable(headers, cells, tableOptions(options))];
  const total = pages.reduce((sum, { page }) => sum + page.totalSize, 0);
  const shown = total > rows.length ? `${rows.length} of ${total} tasks` : plural(rows.length, 'task');
  lines.push('', `${shown} of ${whose}.`);
  for (const { agent, page } of pages) {
    if (!page.nextPageToken) continue;
    // A page token continues one agent's query: the hint names the agent and repeats the filters.
    const words = ['tasks list', agent && `--agent ${shellWord(agent)}`, options.filters, '--page-token'];
    const more = `${words.filter(Boolean).join(' ')} ${shellWord(page.nextPageToken)}`;
    lines.push(`More:  ${commandHint(more, { gatewayUrl: options.gatewayUrl })}`);
  }
  return lines.join('\n');
}

function whoseTasks(pages: readonly AgentTaskPage[], everyAgent: boolean): string {
  if (everyAgent && pages.length > 1) return `${pages.length} agents`;
  const agent = pages[0]?.agent;
  return agent ? `agent ${agent}` : "the gateway's default agent";
}

function updatedAt(task: Task): string {
  return task.status?.timestamp ?? '';
}

function isWaiting(task: Task): boolean {
  const state = taskState(task);
  return state !== undefined && isInterrupted(state);
}

/** Who may answer a waiting task; while several questions wait, each by its id. */
function mayAnswer(task: Task): string {
  if (!isWaiting(task)) return '';
  const open = openQuestionsOf(task);
  if (open.length <= 1) return answerers(task, open[0]);
  return open.map((question) => `${question.id}: ${answerers(task, question)}`).join('; ');
}

/**
 * Who may answer a question: the responders it names; when it names none, the task's owner (on a
 * gateway with authentication; without, anyone may) or, with no owner known, anyone.
 */
function answerers(task: Task, question: QuestionView | undefined): string {
  if (question?.outOfBand) return '(out of band)';
  if (question?.responders?.length) return question.responders.join(', ');
  const owner = task.metadata?.['owner'];
  return typeof owner === 'string' && owner ? `${owner} (owner)` : 'anyone';
}
