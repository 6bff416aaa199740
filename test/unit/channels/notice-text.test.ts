/** What a notice of a quorum question says of its votes, by email or webhook text and by Slack. */
import { describe, expect, it } from 'vitest';
import { noticeText } from '../../../src/channels/notice-text.js';
import { slackMessage } from '../../../src/channels/slack.js';
import type { ApproverNotice } from '../../../src/protocol/approvals.js';

const reminder: ApproverNotice = {
  id: 't:1:carol:email:reminder0',
  kind: 'reminder',
  channel: 'email',
  approver: 'carol',
  taskId: 't',
  agent: 'purchases',
  question: 'Buy 3 monitors?',
  askedAt: '2026-11-28T10:00:00.000Z',
  approvals: '1 of 2 approvals; still needed: 1 more approval',
};

describe('a quorum question’s notice', () => {
  it('says where the votes stand', () => {
    expect(noticeText(reminder, 'https://inbox')).toContain(
      'Approvals: 1 of 2 approvals; still needed: 1 more approval',
    );
    expect(JSON.stringify(slackMessage(reminder, 'https://inbox'))).toContain(
      '*Approvals:* 1 of 2 approvals; still needed: 1 more approval',
    );
  });

  it('once decided, names every approver, not only the last vote', () => {
    const answered: ApproverNotice = {
      ...reminder,
      id: 't:1:alice:email:answered',
      kind: 'answered',
      approver: 'alice',
      answeredBy: 'carol',
      decision: 'Approved by bob and carol (2 of 2 approvals)',
    };
    const text = noticeText(answered, 'https://inbox');
    expect(text).toContain('Approved by bob and carol (2 of 2 approvals): nothing more is needed from you.');
    expect(text).not.toContain('carol answered');
    expect(JSON.stringify(slackMessage(answered, 'https://inbox'))).toContain(
      'Approved by bob and carol (2 of 2 approvals): Buy 3 monitors?',
    );
  });

  it('says nothing of votes for a question without quorum', () => {
    const { approvals: _approvals, ...plain } = reminder;
    expect(noticeText(plain, 'https://inbox')).not.toContain('Approvals');
  });
});
