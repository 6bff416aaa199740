/**
 * Approve / Deny clicked in Slack, at a real gateway: a click signed with the app's signing secret
 * by a Slack user the directory maps answers the task as that principal, through the same checks as
 * an A2A reply; a wrong signature, a stale timestamp, an unmapped user and a click naming no user are
 * refused, and a mapped user who may not answer is told so.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import exampleAgents from '../../../examples/agents/index.js';
import { slackMessage } from '../../../src/channels/slack.js';
import { SLACK_INTERACTIONS_PATH, slackSignatureProblem } from '../../../src/channels/slack-interactions.js';
import type { ApproverNotice } from '../../../src/protocol/approvals.js';
import type { PendingQuestion } from '../../../src/protocol/question.js';
import { askingAgent } from '../../support/agents/test-agents.js';
import { useGatewayHarness } from '../../support/gateway-harness.js';
import { finalTask, startTask, waitForState } from '../../support/tasks.js';

const SECRET = 'slack-signing-secret-for-tests';
const directory = {
  // Dave has no Slack user: a click that names none must not be his.
  principals: { dave: {}, frank: { slack: 'U0FRANK1' }, hank: { slack: 'U0HANK01' } },
  groups: { buyers: ['dave', 'frank'] },
};

const harness = useGatewayHarness({
  gateway: { agents: [...exampleAgents, askingAgent], slackInteractions: { signingSecret: SECRET, directory } },
});

/** The buttons of the message the Slack channel posts for this question (the value Slack sends back). */
function buttonValue(taskId: string, askedAt: string): string {
  const notice: ApproverNotice = {
    id: 'x',
    kind: 'ask',
    channel: 'slack',
    approver: 'frank',
    taskId,
    agent: 'test-ask',
    question: 'Your answer?',
    askedAt,
  };
  const { blocks } = slackMessage(notice, 'https://inbox.example/inbox/task', { buttons: true }) as {
    blocks: Array<{ type: string; elements?: Array<{ action_id?: string; value?: string }> }>;
  };
  const elements = blocks.find((block) => block.type === 'actions')!.elements!;
  expect(elements.map((element) => element.action_id)).toEqual(['a2a_approve', 'a2a_deny', undefined]);
  return elements[0]!.value!;
}

/** `user`: the clicking Slack user's ID; undefined sends a payload without `user`. */
async function click(
  user: string | undefined,
  value: string,
  options: { secret?: string; timestamp?: number; action?: string } = {},
): Promise<{ status: number; body: { text?: string; error?: string } }> {
  const payload = {
    type: 'block_actions',
    ...(user !== undefined && { user: { id: user } }),
    actions: [{ action_id: options.action ?? 'a2a_approve', value }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', options.secret ?? SECRET)
    .update(`v0:${timestamp}:${body}`)
    .digest('hex')}`;
  const response = await fetch(`${harness.gateway.url}${SLACK_INTERACTIONS_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as { text?: string; error?: string } };
}

describe('Slack buttons', () => {
  it('checks the signature and its age', () => {
    const raw = Buffer.from('payload=%7B%7D');
    const now = 1_800_000_000;
    const sign = (secret: string, ts: number) =>
      `v0=${createHmac('sha256', secret).update(`v0:${ts}:`).update(raw).digest('hex')}`;
    expect(slackSignatureProblem(SECRET, raw, String(now), sign(SECRET, now), now)).toBeUndefined();
    expect(slackSignatureProblem(SECRET, raw, String(now), sign('other', now), now)).toBe(
      'The signature does not match',
    );
    expect(slackSignatureProblem(SECRET, raw, String(now - 301), sign(SECRET, now - 301), now)).toMatch(/too old/);
    expect(slackSignatureProblem(SECRET, raw, undefined, undefined, now)).toMatch(/not signed/);
  });

  it('answers the task as the mapped principal; refuses what Slack did not sign, stale clicks and strangers', async () => {
    const { taskId, handle } = await startTask(harness.temporal, harness.worker.taskQueue, 'test-ask', {
      text: 'Buy chairs',
      data: { responders: ['group:buyers'] },
    });
    const asked = await waitForState(handle, 'input-required');
    const value = buttonValue(taskId, (asked.metadata?.pendingQuestion as PendingQuestion).askedAt);

    expect((await click('U0FRANK1', value, { secret: 'not-the-secret' })).status).toBe(401);
    expect((await click('U0FRANK1', value, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
    for (const user of ['U0NOBODY', undefined, '']) {
      const stranger = await click(user, value);
      expect(stranger.status, `Slack user ${user}`).toBe(403);
      expect(stranger.body.text).toContain('not in the approver directory');
    }
    // Hank is in the directory but not among the question's responders: the task's own refusal.
    const hank = await click('U0HANK01', value);
    expect(hank.status).toBe(200);
    expect(hank.body.text).toMatch(/^Not recorded: Only group:buyers may answer this question/);
    await waitForState(handle, 'input-required');

    const frank = await click('U0FRANK1', value);
    expect(frank).toEqual({ status: 200, body: expect.objectContaining({ text: 'Recorded: approve, as frank.' }) });
    const { task } = await finalTask(handle);
    expect(JSON.parse(task.status.message!.parts[0]!.text!)).toMatchObject({ text: 'approve', responder: 'frank' });
    // A second click after the answer: refused as a late reply is.
    expect((await click('U0FRANK1', value)).body.text).toMatch(/^Not recorded:/);
  });
});
