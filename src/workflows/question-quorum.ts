/**
 * A question decided by a quorum of votes (release 16, task-patches.ts; docs/approval-policies.md,
 * Quorum). The Update's validator refuses a vote that cannot count (no approve or deny in it, a
 * second vote of the same person, an approval no rule still takes), so a refused vote costs nothing
 * in history. An accepted vote is kept in the question; the question is decided, and its reply
 * delivered, only by the vote that reaches the quorum or the denies that reject it.
 */
import type { PendingQuestion, Question } from '../protocol/question.js';
import {
  countVote,
  plannedQuorum,
  quorumText,
  ruleFor,
  voteComment,
  voteOf,
  voterOf,
  type QuorumOptions,
  type Vote,
  type VoteDecision,
} from '../protocol/quorum.js';
import { AgentFailure } from './agent-api.js';
import { asksQuorum } from './task-patches.js';

/** The quorum `options` ask for, as a question holds it; none before release 16. */
export function plannedQuorumOf(
  options: QuorumOptions | undefined,
  responders: string[] | undefined,
): Pick<PendingQuestion, 'quorum' | 'responders'> {
  if (options === undefined || !asksQuorum()) return {};
  let quorum;
  try {
    quorum = plannedQuorum(options);
  } catch (error) {
    throw new AgentFailure(`ask: ${(error as Error).message}`);
  }
  // Rules by group reach their groups when the question names nobody itself.
  const groups = quorum.rules.flatMap((rule) => (rule.group ? [`group:${rule.group}`] : []));
  const reached = responders ?? (groups.length > 0 ? groups : undefined);
  return { quorum, ...(reached && { responders: reached }) };
}

/** Who votes: the one answering, whom they act for as a deputy, and the groups their approval may count for. */
export interface Voter {
  who: string | undefined;
  actingFor: string | undefined;
  /**
   * The caller's groups; a deputy's are their principal's, which the deputies activity names
   * (release 18; before, none: a deputy's approval counted toward a rule without group only).
   */
  groups: readonly string[];
}

/** Why a reply cannot count as a vote on `question` (a quorum question), or undefined when it can. */
export function voteProblem(question: Question, voter: Voter, text: string, data: unknown): string | undefined {
  const quorum = question.quorum!;
  const decision = voteOf(text, data);
  if (!decision) {
    return `This question is decided by votes (${quorumText(quorum)}): reply "approve" or "deny <reason>", or data {"decision": "approve" | "deny"}`;
  }
  if (voter.who === undefined) return 'A vote must say who votes: sign in, or name yourself (metadata.responder)';
  const person = voterOf({ by: voter.who, ...(voter.actingFor && { actingFor: voter.actingFor }) });
  // Once per principal represented, and once per person voting: a deputy who voted for bob and is later
  // a responder themselves (an escalation), or the deputy of two, does not vote again.
  const earlier = question.votes?.find((vote) => voterOf(vote) === person || vote.by === voter.who);
  if (earlier) {
    const who = voterOf(earlier) === person ? person : voter.who;
    const as = earlier.actingFor ? ` (by ${earlier.by} as ${earlier.actingFor}'s deputy)` : '';
    return `${who} already voted ${earlier.decision} on this question at ${earlier.at}${as}; each person counts once`;
  }
  if (decision === 'approve' && ruleFor(quorum, voter.groups) === undefined) {
    return `${person}'s approval counts toward no rule still open (${quorumText(quorum)})`;
  }
  return undefined;
}

/**
 * Counts a vote (checked by voteProblem) on `question`, which keeps it; the decision once the
 * quorum is reached (or the denies reject), else undefined: the question waits on.
 */
export function castVote(
  question: Question,
  voter: Voter,
  text: string,
  data: unknown,
  answered: Pick<Vote, 'at' | 'channel'>,
): VoteDecision | undefined {
  const decision = voteOf(text, data)!;
  const rule = decision === 'approve' ? ruleFor(question.quorum!, voter.groups) : undefined;
  const group = rule === undefined ? undefined : question.quorum!.rules[rule]!.group;
  const comment = voteComment(text, data);
  const vote: Vote = {
    by: voter.who!,
    ...(voter.actingFor && { actingFor: voter.actingFor }),
    decision,
    ...answered,
    ...(comment && { comment }),
    ...(group && { group }),
  };
  const counted = countVote(question.quorum!, decision, rule);
  question.quorum = counted.quorum;
  question.votes = [...(question.votes ?? []), vote];
  return counted.decided;
}
