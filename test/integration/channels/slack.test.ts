/**
 * The Slack channel against a Slack stand-in (a local HTTP server that checks the Web API calls'
 * shape): the approver's Slack user gets the question with a link button to the inbox; a user Slack
 * does not know and an approver without a Slack user fail for good, saying so; an incoming webhook
 * gets the same message with the approver mentioned. The agent's text is escaped for Slack's mrkdwn
 * in the fallback text as in the blocks.
 */
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NoticeState } from '../../../src/protocol/approvals.js';
import { slackSettingsFromEnv } from '../../../src/channels/slack.js';
import { finalTask, reply, startTask, waitForState } from '../../support/tasks.js';
import { startTestWorker, testClient, type TestWorker } from '../../support/worker.js';
import { eventually } from '../../support/mail-server.js';
import { BOT_TOKEN, SlackStandIn } from '../../support/slack-stand-in.js';
import { readSettings } from '../../../src/config/settings.js';

/** Slack markup in an agent's question: a mention of everyone, a disguised link, and the three escaped characters. */
const HOSTILE_QUESTION = '<!channel> <https://evil.example|Open the inbox> & 1 < 2 > 0?';
const ESCAPED_QUESTION = '&lt;!channel&gt; &lt;https://evil.example|Open the inbox&gt; &amp; 1 &lt; 2 &gt; 0?';

const directory = {
  principals: {
    frank: { slack: 'U0FRANK1' },
    gina: { slack: 'UNKNOWN1' },
    hank: { email: 'hank@example.com' },
    ivy: { slack: 'U0IVY001' },
  },
  groups: { buyers: ['frank', 'gina', 'hank'] },
};

let slack: SlackStandIn;
let base: string;
let client: Client;

beforeAll(async () => {
  slack = new SlackStandIn();
  base = await slack.start();
  client = await testClient();
});

afterAll(async () => {
  await client?.connection.close();
  await slack?.close();
});

function notices(task: { metadata?: Record<string, unknown> }): NoticeState[] {
  return (task.metadata?.approverNotifications ?? []) as NoticeState[];
}

describe('the Slack channel', () => {
  it('reads its settings from the environment, refusing two ways at once', () => {
    expect(slackSettingsFromEnv(readSettings({}))).toBeUndefined();
    expect(slackSettingsFromEnv(readSettings({ A2A_SLACK_BOT_TOKEN: 'xoxb-1' }))).toEqual({
      botToken: 'xoxb-1',
      apiUrl: 'https://slack.com/api',
    });
    expect(() =>
      slackSettingsFromEnv(readSettings({ A2A_SLACK_BOT_TOKEN: 'x', A2A_SLACK_WEBHOOK_URL: 'https://h' })),
    ).toThrow('not both');
  });

  describe('with a bot token (Web API)', () => {
    let worker: TestWorker;
    beforeAll(async () => {
      const settings = slackSettingsFromEnv(
        readSettings({ A2A_SLACK_BOT_TOKEN: BOT_TOKEN, A2A_SLACK_API_URL: `${base}/api/` }),
      )!;
      worker = await startTestWorker(undefined, {
        approvals: { directory, slack: settings, publicUrl: 'https://approvals.example.com' },
      });
    });
    afterAll(() => worker?.shutdown());

    it("posts the question to the approver's Slack user, with a link to the inbox", async () => {
      const { taskId, handle } = await startTask(client, worker.taskQueue, 'test-ask', {
        text: 'Buy <b>2</b> chairs & a desk',
        data: { responders: ['frank', 'group:buyers'], notify: ['slack'], deadline: '1 hour' },
      });
      await waitForState(handle, 'input-required');
      const waiting = await eventually(async () => {
        const task = await waitForState(handle, 'input-required');
        return notices(task).every((notice) => notice.state !== 'pending') && notices(task).length === 3 && task;
      });
      const byApprover = Object.fromEntries(notices(waiting).map((notice) => [notice.approver, notice]));
      expect(byApprover.frank).toMatchObject({ state: 'sent', to: 'Slack user U0F***' });
      expect(byApprover.gina).toMatchObject({
        state: 'failed',
        reason: 'Slack refused the message: channel_not_found',
      });
      expect(byApprover.hank).toMatchObject({
        state: 'failed',
        reason: 'The approver directory has no Slack user for hank',
      });

      const posted = slack.calls.filter((call) => call.body.channel === 'U0FRANK1');
      expect(posted).toHaveLength(1);
      const [call] = posted;
      expect(call!.path).toBe('/api/chat.postMessage');
      expect(call!.headers['content-type']).toContain('application/json');
      expect(call!.body.text).toBe('Approval needed: Your answer?');
      const blocks = JSON.stringify(call!.body.blocks);
      // Agent and user text is escaped for Slack's mrkdwn.
      expect(blocks).toContain('Buy &lt;b&gt;2&lt;/b&gt; chairs &amp; a desk');
      const actions = call!.body.blocks.find((block) => block.type === 'actions') as {
        elements: Array<{ url: string }>;
      };
      expect(actions.elements[0]!.url).toBe(`https://approvals.example.com/inbox/task?agent=test-ask&id=${taskId}`);

      // Gina was never told (Slack refused): only those told hear who answered. Frank answered
      // himself: his message is updated (its question answered), and no message of its own says so.
      await reply(handle, { text: 'approve', responder: 'frank' });
      const { task } = await finalTask(handle);
      expect(notices(task).filter((notice) => notice.kind === 'answered')).toMatchObject([
        { approver: 'frank', state: 'sent', answeredBy: 'frank', to: 'Slack user U0F***' },
      ]);
      const updates = slack.calls.filter((c) => c.path === '/api/chat.update');
      expect(updates).toHaveLength(1);
      const [update] = updates;
      expect(update!.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
      expect(update!.body).toMatchObject({ channel: 'D0FRANK1', ts: `${slack.calls.indexOf(call!) + 1}.000100` });
      expect(update!.body.text).toBe('Answered by frank: Your answer?');
      const updated = JSON.stringify(update!.body.blocks);
      expect(updated).toContain('Buy &lt;b&gt;2&lt;/b&gt; chairs &amp; a desk');
      expect(updated).toContain('See the task');
      expect(updated).not.toContain('Answer in the inbox');
      // The addresses of the messages stay out of the task's metadata.
      expect(JSON.stringify(task.metadata)).not.toContain('D0FRANK1');
    });

    it("escapes the fallback text as the blocks: the agent's markup is shown, not acted on", async () => {
      const from = slack.calls.length;
      const { handle } = await startTask(client, worker.taskQueue, 'test-ask', {
        text: 'Pay the invoice',
        data: { question: HOSTILE_QUESTION, responders: ['frank'], notify: ['slack'] },
      });
      const [posted] = await eventually(() => {
        const calls = slack.calls.slice(from).filter((c) => c.path === '/api/chat.postMessage');
        return calls.length > 0 && calls;
      });
      expect(posted!.body.text).toBe(`Approval needed: ${ESCAPED_QUESTION}`);
      expect(JSON.stringify(posted!.body.blocks)).toContain(JSON.stringify(ESCAPED_QUESTION));
      await reply(handle, { text: 'approve', responder: 'frank' });
      await finalTask(handle);
      const [update] = await eventually(() => {
        const calls = slack.calls.slice(from).filter((c) => c.path === '/api/chat.update');
        return calls.length > 0 && calls;
      });
      expect(update!.body.text).toBe(`Answered by frank: ${ESCAPED_QUESTION}`);
    });

    it('updates every message of the question when someone answers, and when it expires', async () => {
      const updatesOf = (channel: string, from: number) =>
        slack.calls.slice(from).filter((c) => c.path === '/api/chat.update' && c.body.channel === channel);

      // Answered by frank: the messages (question and reminder) to ivy and to frank himself are updated.
      let from = slack.calls.length;
      const answered = await startTask(client, worker.taskQueue, 'test-ask', {
        text: 'Renew the lease',
        data: {
          responders: ['frank', 'ivy'],
          notify: ['slack'],
          deadline: '30 seconds',
          remind: ['29 seconds before'],
        },
      });
      await eventually(() => slack.calls.slice(from).filter((c) => c.body.channel === 'U0IVY001').length === 2);
      await reply(answered.handle, { text: 'approve', responder: 'frank' });
      await finalTask(answered.handle);
      const ivyUpdates = updatesOf('D0IVY001', from);
      expect(ivyUpdates.map((c) => c.body.text)).toEqual([
        'Answered by frank: Your answer?',
        'Answered by frank: Your answer?',
      ]);
      const ivyPosts = slack.calls.slice(from).filter((c) => c.body.channel === 'U0IVY001');
      expect(ivyPosts.map((c) => c.body.text)).toEqual([
        'Approval needed: Your answer?',
        expect.stringMatching(/^Reminder, approval needed by /),
      ]);
      expect(new Set(ivyUpdates.map((c) => c.body.ts)).size).toBe(2);
      expect(updatesOf('D0FRANK1', from)).toHaveLength(2);

      // Expired: the message says so.
      from = slack.calls.length;
      const expiring = await startTask(client, worker.taskQueue, 'test-ask', {
        text: 'Order toner',
        data: {
          responders: ['ivy'],
          notify: ['slack'],
          deadline: '2 seconds',
          onDeadline: { kind: 'answer', text: 'nobody answered' },
        },
      });
      const { task } = await finalTask(expiring.handle);
      expect(updatesOf('D0IVY001', from).map((c) => c.body.text)).toEqual(['Expired without an answer: Your answer?']);
      expect(notices(task).map(({ kind, state }) => ({ kind, state }))).toEqual([
        { kind: 'ask', state: 'sent' },
        { kind: 'expired', state: 'sent' },
      ]);
    });
  });

  describe('with an incoming webhook', () => {
    let worker: TestWorker;
    beforeAll(async () => {
      worker = await startTestWorker(undefined, {
        approvals: { directory, slack: { webhookUrl: `${base}/hooks/incoming` } },
      });
    });
    afterAll(() => worker?.shutdown());

    it('posts the message to the channel, mentioning the approver (the question stays text)', async () => {
      const before = slack.calls.length;
      const { handle } = await startTask(client, worker.taskQueue, 'test-ask', {
        text: 'Renew the domain',
        data: { question: HOSTILE_QUESTION, responders: ['frank'], notify: ['slack'] },
      });
      await waitForState(handle, 'input-required');
      const [call] = await eventually(() => {
        const calls = slack.calls.slice(before).filter((c) => c.path === '/hooks/incoming');
        return calls.length > 0 && calls;
      });
      expect(call!.body.text).toBe(`<@U0FRANK1> Approval needed: ${ESCAPED_QUESTION}`);
      expect(call!.body.channel).toBeUndefined();
      expect(call!.headers.authorization).toBeUndefined();
      await reply(handle, { text: 'ok', responder: 'frank' });
      const { task } = await finalTask(handle);
      expect(notices(task)).toMatchObject([{ approver: 'frank', state: 'sent', to: 'Slack user U0F***' }]);
    });
  });
});
