import { describe, expect, it } from 'vitest';
import { questionLine, questionsShown } from '../../../src/protocol/question.js';

describe('a question', () => {
  it('reads on one line, cut with an ellipsis where it is long (a notice subject, a deploy report)', () => {
    expect(questionLine('  Approve\n\tthe   refund?  ', 80)).toBe('Approve the refund?');
    expect(questionLine('Approve the refund?', 10)).toBe('Approve t…');
    expect(questionLine('Approve the refund?', 19)).toBe('Approve the refund?');
  });

  it("shown by a task's metadata: every open one while several are, else the one", () => {
    expect(questionsShown({ pendingQuestion: 'a', pendingQuestions: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(questionsShown({ pendingQuestion: 'a' })).toEqual(['a']);
    expect(questionsShown({})).toEqual([]);
    expect(questionsShown(undefined)).toEqual([]);
  });
});
