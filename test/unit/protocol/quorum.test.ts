/** How a quorum question counts its votes (docs/approval-policies.md, Quorum). */
import { describe, expect, it } from 'vitest';
import {
  countVote,
  decisionText,
  plannedQuorum,
  quorumText,
  ruleFor,
  voteComment,
  voteOf,
  voteText,
  type Vote,
} from '../../../src/protocol/quorum.js';

describe('a vote', () => {
  it('is the data’s decision, else the first word of the text; anything else is none', () => {
    expect(voteOf('', { decision: 'deny', reason: 'too much' })).toBe('deny');
    expect(voteOf('', { approved: true })).toBe('approve');
    expect(voteOf('Approve, within budget', undefined)).toBe('approve');
    expect(voteOf('yes', undefined)).toBe('approve');
    expect(voteOf('rejected: over budget', undefined)).toBe('deny');
    expect(voteOf('No', undefined)).toBe('deny');
    expect(voteOf('maybe', undefined)).toBeUndefined();
    expect(voteOf('approvers are away', undefined)).toBeUndefined();
  });

  it('keeps the reason, the comment or the text as its comment', () => {
    expect(voteComment('deny', { decision: 'deny', reason: 'too much' })).toBe('too much');
    expect(voteComment('approve fine', undefined)).toBe('approve fine');
    expect(voteComment('x'.repeat(300), undefined)).toHaveLength(200);
  });
});

describe('a quorum', () => {
  it('of 2 is reached by the second approval; one deny rejects', () => {
    const asked = plannedQuorum({ required: 2 });
    const once = countVote(asked, 'approve', ruleFor(asked, []));
    expect(once.decided).toBeUndefined();
    expect(quorumText(once.quorum)).toBe('1 of 2 approvals; still needed: 1 more approval');
    expect(countVote(once.quorum, 'approve', ruleFor(once.quorum, [])).decided).toBe('approve');
    expect(countVote(once.quorum, 'deny', undefined).decided).toBe('deny');
  });

  it('rejects at rejectWhen’s denies', () => {
    const asked = plannedQuorum({ required: 2, rejectWhen: { denies: 2 } });
    const once = countVote(asked, 'deny', undefined);
    expect(once.decided).toBeUndefined();
    expect(countVote(once.quorum, 'deny', undefined).decided).toBe('deny');
  });

  it('allOf: an approval counts toward the first open rule of the voter’s groups, and none once those are full', () => {
    const asked = plannedQuorum({
      allOf: [
        { group: 'finance', required: 1 },
        { group: 'security', required: 1 },
      ],
    });
    expect(ruleFor(asked, ['finance', 'security'])).toBe(0);
    expect(ruleFor(asked, ['legal'])).toBeUndefined();
    const finance = countVote(asked, 'approve', 0).quorum;
    expect(finance.needed).toEqual(['1 more of group:security']);
    expect(ruleFor(finance, ['finance'])).toBeUndefined();
    expect(ruleFor(finance, ['finance', 'security'])).toBe(1);
  });

  it('refuses a rule that cannot be met', () => {
    expect(() => plannedQuorum({})).toThrow('quorum needs either `required` or `allOf`');
    expect(() => plannedQuorum({ required: 0 })).toThrow('quorum: required must be a whole number of 1 or more');
    expect(() => plannedQuorum({ allOf: [{ group: '', required: 1 }] })).toThrow('each allOf rule needs a group');
  });
});

describe('a quorum decision in words', () => {
  const at = '2026-11-28T14:02:09.000Z';
  const vote = (by: string, decision: Vote['decision'], actingFor?: string): Vote => ({
    by,
    decision,
    at,
    channel: 'inbox',
    ...(actingFor && { actingFor }),
  });

  it('names every approver of an approval, every denier of a rejection', () => {
    const two = countVote(countVote(plannedQuorum({ required: 2 }), 'approve', 0).quorum, 'approve', 0).quorum;
    expect(decisionText(two, [vote('alice', 'approve'), vote('dora', 'approve', 'bob')])).toBe(
      'Approved by alice and dora for bob (2 of 2 approvals)',
    );
    const denied = countVote(plannedQuorum({ required: 2 }), 'deny', undefined).quorum;
    expect(decisionText(denied, [vote('carol', 'deny')])).toBe('Denied by carol');
    const patient = plannedQuorum({ required: 3, rejectWhen: { denies: 2 } });
    const twice = countVote(countVote(patient, 'deny', undefined).quorum, 'deny', undefined).quorum;
    expect(decisionText(twice, [vote('bob', 'deny'), vote('alice', 'approve'), vote('carol', 'deny')])).toBe(
      'Denied by bob and carol (2 of 2 denies)',
    );
  });

  it('shows one vote on a line: who, for whom, what and when (UTC), with its comment', () => {
    expect(voteText({ ...vote('dora', 'approve', 'bob'), comment: 'fine' })).toBe(
      'dora for bob approved at 2026-11-28 14:02 UTC (“fine”)',
    );
  });
});
