/** Who a waiting question is listed to in the inbox (waiting-for.ts): a quorum voter no longer sees it as waiting. */
import { describe, expect, it } from 'vitest';
import { pageOf, type WaitingQuestionRow } from '../../../src/tasks/waiting-for.js';
import { plannedQuorum } from '../../../src/protocol/quorum.js';

const row: WaitingQuestionRow = {
  taskId: 't1',
  contextId: 'c1',
  agent: 'purchases',
  askedBy: 'alice',
  question: {
    kind: 'input',
    prompt: 'Pay the invoice?',
    askedAt: '2026-11-28T10:00:00.000Z',
    responders: ['group:finance'],
    deputies: [{ to: 'dora', for: 'bob' }],
    quorum: plannedQuorum({ required: 2 }),
    votes: [{ by: 'dora', actingFor: 'bob', decision: 'approve', at: '2026-11-28T10:01:00.000Z', channel: 'inbox' }],
  },
};

const listedTo = (id: string, groups: string[]) =>
  pageOf([row], { caller: { id, groups } }).questions.map(({ taskId }) => taskId);

describe('a quorum question in the inbox list', () => {
  it('waits for those who have not voted, not for who voted nor for whom their deputy voted', () => {
    expect(listedTo('carol', ['finance'])).toEqual(['t1']);
    expect(listedTo('dora', [])).toEqual([]);
    expect(listedTo('bob', ['finance'])).toEqual([]);
  });
});
