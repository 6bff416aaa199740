/**
 * A deploy check as a person reads it: what was replayed, which agents' tasks would break and how
 * many, the first divergence of each such agent, and the two ways to ship the change safely.
 */
import type { BrokenTask, DeployCheck } from './replay.js';

/** Task IDs listed per agent; the rest are counted. */
const LISTED_TASKS = 10;

const FIX_ADVICE = [
  'Fix: keep the old path for the tasks started before the change, and take the new one for the rest:',
  "  if (ctx.patched('my-change')) { /* new code */ } else { /* old code */ }",
  "(ctx.patched from the agent's context, not patched() from @temporalio/workflow), or run the new code",
  'on workers of their own with Worker Versioning, so waiting tasks finish on the code that started them.',
];

/**
 * The report `check-deploy` prints, as lines: what was replayed, which tasks would break, and how to fix it.
 *
 * @param source - what was replayed, e.g. "the open tasks on 127.0.0.1:7233 (namespace default, task queue q)".
 */
export function describeDeployCheck(check: DeployCheck, source: string): string[] {
  const seconds = (check.durationMs / 1000).toFixed(1);
  const replayed = `Replayed ${count(check.replayed, 'task')} of ${check.agents.join(', ')} on the new code in ${seconds} s (${check.waiting} waiting for input): ${source}.`;
  const pinned = describePinned(check.pinned);
  if (check.replayed === 0) return [`No tasks of ${check.agents.join(', ')} to replay in ${source}.`, ...pinned];
  if (check.broken.length === 0) return [replayed, 'None would break: the new code replays every one.', ...pinned];
  return [
    replayed,
    ...pinned,
    '',
    `${count(check.broken.length, 'task')} would break: the new code does not make the calls their histories recorded.`,
    ...byAgent(check.broken).flatMap(([agent, tasks]) => describeAgent(agent, tasks)),
    '',
    ...FIX_ADVICE,
  ];
}

/** Pinned tasks finish on their own version: nothing to replay, but its workers must stay until they do. */
function describePinned(pinned: Record<string, number> = {}): string[] {
  const versions = Object.entries(pinned);
  if (versions.length === 0) return [];
  const total = versions.reduce((sum, [, tasks]) => sum + tasks, 0);
  return [
    `${count(total, 'task')} pinned by Worker Versioning not replayed: they finish on the version that started them ` +
      `(${versions.map(([version, tasks]) => `${tasks} on ${version}`).join(', ')}); keep those versions' workers running until their tasks end.`,
  ];
}

function byAgent(broken: BrokenTask[]): [string, BrokenTask[]][] {
  const agents = new Map<string, BrokenTask[]>();
  for (const task of broken) agents.set(task.agent, [...(agents.get(task.agent) ?? []), task]);
  return [...agents];
}

function describeAgent(agent: string, tasks: BrokenTask[]): string[] {
  const waiting = tasks.filter((task) => task.state === 'input-required' || task.state === 'auth-required').length;
  const listed = tasks.slice(0, LISTED_TASKS).map((task) => `${task.taskId}${task.state ? ` (${task.state})` : ''}`);
  const more = tasks.length > LISTED_TASKS ? [`and ${tasks.length - LISTED_TASKS} more`] : [];
  const first = tasks[0]!;
  return [
    `  ${agent}: ${count(tasks.length, 'task')}${waiting ? `, ${waiting} waiting for input` : ''}`,
    `    ${[...listed, ...more].join(', ')}`,
    `    first divergence (task ${first.taskId}): ${first.divergence}`,
  ];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
