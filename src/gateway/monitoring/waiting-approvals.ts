/**
 * The approvals waiting on this gateway's task queue, per agent, from Temporal visibility: how many,
 * since when the oldest waits, and how many are past their deadline (a task past its deadline has
 * a timer that has not fired: no worker is running it). One listing serves every scrape for
 * `maxAgeMs`, whatever the number of scrapers and of waiting tasks; visibility is eventually
 * consistent, so a question asked a second ago may be missing.
 */
import type { Client } from '@temporalio/client';
import { waitingQuestions } from '../../tasks/index.js';

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

/** The approvals waiting per agent, listed from Temporal visibility at most once per `maxAgeMs` (for {@link GatewayMetrics}). */
export class WaitingApprovals {
  private cached?: { at: number; snapshot: Promise<Map<string, AgentApprovals>> };

  constructor(
    private readonly client: Client,
    private readonly agents: readonly string[],
    private readonly taskQueue: string,
    private readonly maxAgeMs = APPROVALS_MAX_AGE_MS,
  ) {}

  /** Every served agent, with zeros when none of its tasks waits; at most `maxAgeMs` old. */
  snapshot(): Promise<Map<string, AgentApprovals>> {
    const now = Date.now();
    // A failed listing is kept too: a Temporal that is down is not asked again at every scrape.
    if (!this.cached || now - this.cached.at >= this.maxAgeMs) this.cached = { at: now, snapshot: this.list(now) };
    return this.cached.snapshot;
  }

  private async list(now: number): Promise<Map<string, AgentApprovals>> {
    const byAgent = new Map(
      this.agents.map((agent): [string, AgentApprovals] => [
        agent,
        { waiting: 0, pastDeadline: 0, pastHalfDeadline: 0 },
      ]),
    );
    for await (const { agent, since, deadline } of waitingQuestions(this.client, this.taskQueue)) {
      const approvals = byAgent.get(agent);
      if (!approvals) continue;
      approvals.waiting += 1;
      approvals.oldestSince = Math.min(approvals.oldestSince ?? since, since);
      if (deadline && deadline.getTime() < now) approvals.pastDeadline += 1;
      if (deadline && (since + deadline.getTime()) / 2 < now) approvals.pastHalfDeadline += 1;
    }
    return byAgent;
  }
}
