/** Who may vote on a quorum question (src/workflows/question-quorum.ts): each person counts once. */
import { describe, expect, it } from 'vitest';
import type { Question } from '../../../src/protocol/question.js';
import { plannedQuorum } from '../../../src/protocol/quorum.js';
import { voteProblem } from '../../../src/workflows/question-quorum.js';

const at = '2026-11-28T10:00:00.000Z';

function questionWith(votes: Question['votes']): Question {
  return { id: 'ask:1', kind: 'input', prompt: 'Pay?', askedAt: at, quorum: plannedQuorum({ required: 3 }), votes };
}

describe('a vote on a quorum question', () => {
  it('is refused from one who voted before as a deputy, now voting as themselves or for another', () => {
    const question = questionWith([{ by: 'dora', actingFor: 'bob', decision: 'approve', at, channel: 'inbox' }]);
    expect(voteProblem(question, { who: 'dora', actingFor: undefined, groups: [] }, 'approve', undefined)).toBe(
      "dora already voted approve on this question at 2026-11-28T10:00:00.000Z (by dora as bob's deputy); each person counts once",
    );
    expect(voteProblem(question, { who: 'dora', actingFor: 'carol', groups: [] }, 'approve', undefined)).toContain(
      'dora already voted',
    );
    // Bob himself counts once too: his deputy voted for him.
    expect(voteProblem(question, { who: 'bob', actingFor: undefined, groups: [] }, 'approve', undefined)).toContain(
      'bob already voted',
    );
    expect(voteProblem(question, { who: 'erin', actingFor: undefined, groups: [] }, 'approve', undefined)).toBe(
      undefined,
    );
  });
});
