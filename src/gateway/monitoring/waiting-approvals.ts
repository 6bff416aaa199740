/**
 * The approvals waiting on this gateway's agents, per agent: how many tasks wait, since when the
 * oldest question waits, and how many are past their deadline (a task past its deadline has a
 * timer that has not fired: no worker is running it). Counted from the gateway's index of waiting
 * questions (src/tasks/waiting-index.ts), the one the inbox's live lists page through: a scrape
 * while a list is open costs Temporal nothing more. One count serves every scrape for `maxAgeMs`,
 * whatever the number of scrapers; visibility is eventually consistent, so a question asked a
 * second ago may be missing.
 */
import type { WaitingQuestionRow, WaitingQuestions } from '../../tasks/index.js';

/** One agent's approvals waiting, as the metrics report them. */
export interface AgentApprovals {
  /** Its tasks waiting in `input-required`. */
  waiting: number;
  /** When the longest-waiting question was asked (ms since the epoch); undefined when none waits. */
  oldestSince?: number;
  /** Those of them past their question's deadline. */
  pastDeadline: number;
  /** Those of them past half the time from their question to its deadline (the past-deadline ones included). */
  pastHalfDeadline: number;
}

const APPROVALS_MAX_AGE_MS = 15_000;

/** The approvals waiting per agent, counted at most once per `maxAgeMs` (for {@link GatewayMetrics}). */
export class WaitingApprovals {
  private cached?: { at: number; snapshot: Promise<Map<string, AgentApprovals>> };

  constructor(
    private readonly questions: WaitingQuestions,
    private readonly agents: readonly string[],
    private readonly maxAgeMs = APPROVALS_MAX_AGE_MS,
  ) {}

  /** Every served agent, with zeros when none of its tasks waits; at most `maxAgeMs` old. */
  snapshot(): Promise<Map<string, AgentApprovals>> {
    const now = Date.now();
    // A failed count is kept too: a Temporal that is down is not asked again at every scrape.
    if (!this.cached || now - this.cached.at >= this.maxAgeMs) this.cached = { at: now, snapshot: this.count(now) };
    return this.cached.snapshot;
  }

  private async count(now: number): Promise<Map<string, AgentApprovals>> {
    const byAgent = new Map(
      this.agents.map((agent): [string, AgentApprovals] => [
        agent,
        { waiting: 0, pastDeadline: 0, pastHalfDeadline: 0 },
      ]),
    );
    for (const { agent, since, deadline } of byTask(await this.questions.all())) {
      const approvals = byAgent.get(agent);
      if (!approvals) continue;
      approvals.waiting += 1;
      approvals.oldestSince = Math.min(approvals.oldestSince ?? since, since);
      if (deadline !== undefined && deadline < now) approvals.pastDeadline += 1;
      if (deadline !== undefined && (since + deadline) / 2 < now) approvals.pastHalfDeadline += 1;
    }
    return byAgent;
  }
}

/**
 * One entry per waiting task (a task may wait on several questions): since its first question was
 * asked, with its soonest deadline (ms since the epoch), as the task's deadline search attribute holds it.
 */
function byTask(rows: readonly WaitingQuestionRow[]): { agent: string; since: number; deadline?: number }[] {
  const tasks = new Map<string, { agent: string; since: number; deadline?: number }>();
  for (const { taskId, agent, question } of rows) {
    const since = Date.parse(question.askedAt);
    const deadline = question.deadline === undefined ? undefined : Date.parse(question.deadline);
    const task = tasks.get(taskId);
    if (!task) {
      tasks.set(taskId, { agent, since, ...(deadline !== undefined && { deadline }) });
      continue;
    }
    task.since = Math.min(task.since, since);
    if (deadline !== undefined) task.deadline = Math.min(task.deadline ?? deadline, deadline);
  }
  return [...tasks.values()];
}
