/**
 * Quorum (docs/approval-policies.md, Quorum): a question that several people must approve. The rules
 * and the tally live in the question (`quorum`), the votes beside them (`votes`), so the task's
 * metadata, its summary memo (the inbox), the notices and the receipt read the same facts. Pure:
 * the workflow sandbox, the worker and the gateway import it.
 */
import type { AnswerChannel } from './answer-channel.js';
import { utcMinuteText } from './time-text.js';

/** What `ctx.ask`'s `quorum` asks for: `required` approvals of any responder, or `allOf` per group. */
export interface QuorumOptions {
  /** This many distinct people must approve. */
  required?: number;
  /** Each rule's group must give its own approvals; one person counts toward one rule only. */
  allOf?: Array<{
    /** The group (without `group:`) whose members' approvals count toward this rule. */
    group: string;
    /** How many of them must approve. */
    required: number;
  }>;
  /** The question is decided `deny` at this many denies. Default 1: one deny rejects. */
  rejectWhen?: {
    /** How many denies decide it. */
    denies: number;
  };
}

/** One rule of a quorum and its approvals so far; no group: any who may answer. */
export interface QuorumRule {
  /** The group whose approvals count toward it; absent: anyone who may answer. */
  group?: string;
  /** The approvals it needs. */
  required: number;
  /** The approvals it has. */
  approvals: number;
}

/** A question's quorum: its rules and where the votes stand (`metadata.pendingQuestion.quorum`). */
export interface QuorumState {
  /** Each rule and its approvals so far. */
  rules: QuorumRule[];
  /** The approvals needed in all. */
  required: number;
  /** The approvals so far, in all. */
  approvals: number;
  /** The denies so far. */
  denies: number;
  /** The denies that decide the question `deny`. */
  rejectAt: number;
  /** Who is still needed, one line a rule: "1 more approval", "1 more of group:security". */
  needed: string[];
}

/** What a vote says. */
export type VoteDecision = 'approve' | 'deny';

/** A vote on a quorum question, as every record of it shows it. */
export interface Vote {
  /** Who voted (the authenticated principal, or the name a client gave without authentication). */
  by: string;
  /** Whom `by` voted for, as their deputy: the vote is theirs. */
  actingFor?: string;
  /** Approve or deny. */
  decision: VoteDecision;
  /** When the vote was taken (ISO 8601, the workflow's clock). */
  at: string;
  /** The way it came: A2A, the CLI, the inbox, an email link, Slack, or the Temporal UI. */
  channel: AnswerChannel;
  /** The vote's reason or comment, or its text (capped). */
  comment?: string;
  /** The group rule an approval counted toward (allOf). */
  group?: string;
}

/** A vote's comment is kept in the question, which every state change of the task carries: capped. */
const COMMENT_CHARS = 200;

/** The quorum `options` ask for, with no vote yet; throws an Error saying what is wrong. */
export function plannedQuorum(options: QuorumOptions): QuorumState {
  const { required, allOf, rejectWhen } = options;
  if ((required === undefined) === (allOf === undefined)) {
    throw new Error('quorum needs either `required` or `allOf`');
  }
  const rules: QuorumRule[] = allOf
    ? allOf.map(({ group, required: count }) => {
        if (typeof group !== 'string' || !group) throw new Error('quorum: each allOf rule needs a group');
        return { group, required: positive(count, `quorum: allOf ${group} required`), approvals: 0 };
      })
    : [{ required: positive(required, 'quorum: required'), approvals: 0 }];
  if (rules.length === 0) throw new Error('quorum: allOf needs at least one rule');
  const rejectAt = rejectWhen ? positive(rejectWhen.denies, 'quorum: rejectWhen denies') : 1;
  return tallied({ rules, required: 0, approvals: 0, denies: 0, rejectAt, needed: [] });
}

/**
 * How a reply votes: its data's `decision` ('approve' | 'deny') or `approved` (boolean), else the
 * first word of its text (approve, approved, yes; deny, denied, reject, rejected, no). Else none.
 */
export function voteOf(text: string, data: unknown): VoteDecision | undefined {
  if (typeof data === 'object' && data !== null) {
    const { decision, approved } = data as { decision?: unknown; approved?: unknown };
    if (decision === 'approve' || decision === 'deny') return decision;
    if (typeof approved === 'boolean') return approved ? 'approve' : 'deny';
  }
  const word = /^\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase();
  if (word === 'approve' || word === 'approved' || word === 'yes') return 'approve';
  if (word === 'deny' || word === 'denied' || word === 'reject' || word === 'rejected' || word === 'no') return 'deny';
  return undefined;
}

/** The vote's comment: the data's `reason` or `comment`, else its text. */
export function voteComment(text: string, data: unknown): string | undefined {
  const { reason, comment } = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const said = [reason, comment, text].find((value) => typeof value === 'string' && value.trim() !== '') as
    string | undefined;
  return said?.trim().slice(0, COMMENT_CHARS);
}

/** The person a vote is theirs: whom a deputy acts for, else who voted. */
export function voterOf(vote: Pick<Vote, 'by' | 'actingFor'>): string {
  return vote.actingFor ?? vote.by;
}

/**
 * Whether `who` has voted on the question `votes` belong to: by themselves, as a deputy, or through
 * their deputy. Either way they cannot vote again (question-quorum.ts), so the question no longer
 * waits for them: their inbox leaves it out, their reminders stop.
 */
export function hasVoted(votes: readonly Vote[] | undefined, who: string): boolean {
  return (votes ?? []).some((vote) => vote.by === who || voterOf(vote) === who);
}

/**
 * The rule an approval of one in `groups` counts toward: the first still short of approvals that
 * takes them (a rule without group takes anyone who may answer). Undefined when none does.
 */
export function ruleFor(quorum: QuorumState, groups: readonly string[]): number | undefined {
  const index = quorum.rules.findIndex(
    (rule) => rule.approvals < rule.required && (rule.group === undefined || groups.includes(rule.group)),
  );
  return index < 0 ? undefined : index;
}

/** The quorum after `vote` (an approval counted toward `rule`), and the decision once it is reached. */
export function countVote(
  quorum: QuorumState,
  vote: VoteDecision,
  rule: number | undefined,
): { quorum: QuorumState; decided?: VoteDecision } {
  const rules = quorum.rules.map((each, index) =>
    index === rule && vote === 'approve' ? { ...each, approvals: each.approvals + 1 } : { ...each },
  );
  const next = tallied({ ...quorum, rules, denies: quorum.denies + (vote === 'deny' ? 1 : 0) });
  if (next.denies >= next.rejectAt) return { quorum: next, decided: 'deny' };
  if (next.approvals >= next.required) return { quorum: next, decided: 'approve' };
  return { quorum: next };
}

/** "1 of 2 approvals; still needed: 1 more of group:security", for status texts and notices. */
export function quorumText(quorum: QuorumState): string {
  const approvals = `${quorum.approvals} of ${quorum.required} approvals`;
  const denies = quorum.denies > 0 ? `, ${quorum.denies} of ${quorum.rejectAt} denies to reject` : '';
  const needed = quorum.needed.length > 0 ? `; still needed: ${quorum.needed.join(', ')}` : '';
  return `${approvals}${denies}${needed}`;
}

/** "dora for bob approved at 2026-11-28 14:02 UTC (“fine”)": one vote, for texts that list them (`tasks show`). */
export function voteText(vote: Vote): string {
  const { decision, at, comment } = vote;
  const said = comment ? ` (“${comment}”)` : '';
  return `${voterName(vote)} ${decision === 'approve' ? 'approved' : 'denied'} at ${utcMinuteText(at)}${said}`;
}

/**
 * Who decided a quorum question, for the notes to its other approvers: "Approved by alice and bob (2 of 2
 * approvals)", "Denied by carol", "Denied by bob and carol (2 of 2 denies)". `quorum` is its tally
 * after the deciding vote, `votes` every vote, that one last.
 */
export function decisionText(quorum: QuorumState, votes: readonly Vote[]): string {
  const decision = votes.at(-1)?.decision ?? 'approve';
  const names = votes.filter((vote) => vote.decision === decision).map(voterName);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'nobody');
  if (decision === 'approve') return `Approved by ${list} (${quorum.approvals} of ${quorum.required} approvals)`;
  return quorum.rejectAt > 1
    ? `Denied by ${list} (${quorum.denies} of ${quorum.rejectAt} denies)`
    : `Denied by ${list}`;
}

/** "bob", or "dora for bob" when a deputy voted. */
function voterName({ by, actingFor }: Pick<Vote, 'by' | 'actingFor'>): string {
  return actingFor ? `${by} for ${actingFor}` : by;
}

/** The totals and the still-needed lines of `quorum`'s rules. */
function tallied(quorum: QuorumState): QuorumState {
  const required = quorum.rules.reduce((sum, rule) => sum + rule.required, 0);
  const approvals = quorum.rules.reduce((sum, rule) => sum + Math.min(rule.approvals, rule.required), 0);
  const needed = quorum.rules
    .filter((rule) => rule.approvals < rule.required)
    .map((rule) => {
      const more = rule.required - rule.approvals;
      return rule.group ? `${more} more of group:${rule.group}` : `${more} more approval${more === 1 ? '' : 's'}`;
    });
  return { ...quorum, required, approvals, needed };
}

function positive(value: unknown, what: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) throw new Error(`${what} must be a whole number of 1 or more`);
  return value as number;
}
