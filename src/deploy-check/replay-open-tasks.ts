/**
 * The deploy check of open tasks, as `check-deploy` and `replayOpenTasks` run it: the open tasks of
 * the project's agents replayed on its code as it is now, less those Worker Versioning pins to a
 * version (they never run on the new code), which are counted instead.
 */
import type { Client } from '@temporalio/client';
import { openTaskHistories, type OpenTasksQuery } from './open-tasks.js';
import { replayTaskHistories, type DeployCheck, type ReplayedProject, type ReplayOptions } from './replay.js';

export async function replayOpenTaskHistories(
  client: Client,
  project: ReplayedProject,
  query: Omit<OpenTasksQuery, 'agents' | 'pinned'>,
  options: ReplayOptions = {},
): Promise<DeployCheck> {
  const pinned = new Map<string, number>();
  const agents = project.agents.map((agent) => agent.name);
  const check = await replayTaskHistories(project, openTaskHistories(client, { ...query, agents, pinned }), options);
  return pinned.size > 0 ? { ...check, pinned: Object.fromEntries(pinned) } : check;
}
