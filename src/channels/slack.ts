/**
 * The Slack channel: a message with the question and a link button to the task's inbox page, sent
 * to the approver's Slack user (the directory's `slack`, a user ID such as U0123ABCD). Set on the
 * worker, one of:
 *
 *   A2A_SLACK_BOT_TOKEN    a bot token (xoxb-…, scope chat:write): chat.postMessage to the user,
 *                          which Slack shows in the app's direct messages
 *   A2A_SLACK_WEBHOOK_URL  an incoming webhook: one channel for everyone, the approver @-mentioned
 *
 * and A2A_SLACK_API_URL (default https://slack.com/api) for a proxy or a stand-in. With a bot token
 * and A2A_SLACK_INTERACTIVE=true the message has Approve / Deny buttons, which Slack sends to the
 * gateway (src/channels/slack-interactions.ts); always a button that opens the task's inbox page.
 * With a bot token, the messages of a question are updated (chat.update), their buttons gone, once it
 * is answered or expires (release 5, src/workflows/task-patches.ts) or its task is canceled or fails
 * (release 6); an incoming webhook posts a new message instead.
 */
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import {
  SLACK_APPROVE_ACTION,
  SLACK_DENY_ACTION,
  type ApproverNotice,
  type PostedMessage,
} from '../protocol/approvals.js';
import { utcMinuteText } from '../protocol/time-text.js';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import { refuseNotice } from './failures.js';
import { noticeSubject } from './notice-text.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

export const SLACK_ENV = {
  botToken: 'A2A_SLACK_BOT_TOKEN',
  webhookUrl: 'A2A_SLACK_WEBHOOK_URL',
  apiUrl: 'A2A_SLACK_API_URL',
  interactive: 'A2A_SLACK_INTERACTIVE',
} as const;

const ATTEMPT_TIMEOUT_MS = 10_000;
/** Web API errors that trying again cannot fix (https://api.slack.com/methods/chat.postMessage#errors). */
const PERMANENT_ERRORS = new Set([
  'channel_not_found',
  'user_not_found',
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'missing_scope',
  'is_archived',
  'not_in_channel',
  'invalid_blocks',
  // chat.update's own (https://api.slack.com/methods/chat.update#errors).
  'message_not_found',
  'cant_update_message',
  'edit_window_closed',
]);

/**
 * How the worker posts to Slack: as a bot (a direct message to each approver, updated when the question
 * ends) or through an incoming webhook (to its channel, mentioning the approver).
 */
export type SlackSettings =
  | {
      /** A bot token with `chat:write` (A2A_SLACK_BOT_TOKEN). */
      botToken: string;
      /** Slack's Web API, or a proxy of it (A2A_SLACK_API_URL; default `https://slack.com/api`). */
      apiUrl: string;
      /** Approve / Deny buttons, answered at the gateway (src/channels/slack-interactions.ts). */
      interactive?: boolean;
    }
  | {
      /** An incoming webhook's URL (A2A_SLACK_WEBHOOK_URL). */
      webhookUrl: string;
    };

export function slackSettingsFromEnv(
  env: Pick<Settings, (typeof SLACK_ENV)[keyof typeof SLACK_ENV]>,
): SlackSettings | undefined {
  const botToken = env[SLACK_ENV.botToken]?.trim();
  const webhookUrl = env[SLACK_ENV.webhookUrl];
  if (botToken && webhookUrl) {
    throw new ConfigError(`Set ${SLACK_ENV.botToken} or ${SLACK_ENV.webhookUrl}, not both`);
  }
  if (webhookUrl) return { webhookUrl };
  if (!botToken) return undefined;
  const apiUrl = withoutTrailingSlashes(env[SLACK_ENV.apiUrl]);
  return { botToken, apiUrl, ...(env[SLACK_ENV.interactive] && { interactive: true }) };
}

/** Slack's mrkdwn treats these three as markup: agent and user text stays text. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The message: a fallback text (notifications, screen readers) and blocks, both read as mrkdwn by Slack. */
export function slackMessage(
  notice: ApproverNotice,
  link: string,
  options: { mention?: string; buttons?: boolean } = {},
): Record<string, unknown> {
  // The mention is our own markup (<@U…>); the subject quotes the question, so it is escaped in both places.
  const lead = options.mention ? `${options.mention} ` : '';
  const subject = escapeMrkdwn(noticeSubject(notice));
  const facts = [
    ...(notice.request ? [`*Request:* ${escapeMrkdwn(notice.request)}`] : []),
    ...(notice.deadline ? [`*Deadline:* ${utcMinuteText(notice.deadline)}`] : []),
    ...(notice.approvals ? [`*Approvals:* ${escapeMrkdwn(notice.approvals)}`] : []),
  ];
  const open = notice.kind === 'ask' || notice.kind === 'reminder';
  return {
    text: `${lead}${subject}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `${lead}*${subject}*` } },
      { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(notice.question) } },
      ...(facts.length > 0 ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: facts.join('   ') }] }] : []),
      {
        type: 'actions',
        elements: [
          ...(open && options.buttons ? answerButtons(notice) : []),
          {
            type: 'button',
            text: { type: 'plain_text', text: open ? 'Answer in the inbox' : 'See the task' },
            url: link,
            ...(open && !options.buttons && { style: 'primary' }),
          },
        ],
      },
    ],
  };
}

/** Approve and Deny: the gateway answers the task named in the value as the clicking Slack user's principal. */
function answerButtons(notice: ApproverNotice): Array<Record<string, unknown>> {
  const { agent, taskId, askedAt, questionId } = notice;
  const value = JSON.stringify({ agent, taskId, askedAt, ...(questionId && { question: questionId }) });
  return [
    {
      type: 'button',
      action_id: SLACK_APPROVE_ACTION,
      text: { type: 'plain_text', text: 'Approve' },
      style: 'primary',
      value,
    },
    {
      type: 'button',
      action_id: SLACK_DENY_ACTION,
      text: { type: 'plain_text', text: 'Deny' },
      style: 'danger',
      value,
    },
  ];
}

/**
 * Posts one notice to `user` (a Slack user ID); throws what Temporal should see. With the Web API,
 * the message posted (its conversation and `ts`), which a later note updates (updateSlackMessages).
 */
export async function postToSlack(
  settings: SlackSettings,
  user: string,
  notice: ApproverNotice,
  link: string,
): Promise<PostedMessage | undefined> {
  const signal = attemptSignal();
  if ('webhookUrl' in settings) {
    const response = await fetch(settings.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(slackMessage(notice, link, { mention: `<@${user}>` })),
      signal,
    });
    const text = (await response.text()).slice(0, 200);
    if (response.ok) return undefined;
    // Incoming webhooks answer 4xx for a message they will never take (e.g. invalid_payload, no_service).
    if (response.status >= 400 && response.status < 500 && response.status !== 429) {
      refuseNotice(`Slack refused the message: ${response.status} ${text}`);
    }
    throw ApplicationFailure.retryable(`Slack answered ${response.status}: ${text}`, 'ApproverSlackFailed');
  }
  const answer = await callWebApi(settings, 'chat.postMessage', {
    channel: user,
    unfurl_links: false,
    ...slackMessage(notice, link, { buttons: settings.interactive === true }),
  });
  return typeof answer.channel === 'string' && typeof answer.ts === 'string'
    ? { channel: answer.channel, ts: answer.ts }
    : undefined;
}

/**
 * A note (answered, expired, canceled, failed) as an update of the messages that asked (chat.update): the question
 * stays where the approver saw it, its buttons replaced by what became of it.
 */
export async function updateSlackMessages(
  settings: SlackSettings,
  messages: readonly PostedMessage[],
  notice: ApproverNotice,
  link: string,
): Promise<void> {
  if ('webhookUrl' in settings) refuseNotice('An incoming webhook cannot update its messages: set a bot token');
  const message = slackMessage(notice, link);
  for (const { channel, ts } of messages) {
    await callWebApi(settings, 'chat.update', { channel, ts, ...message });
  }
}

function attemptSignal(): AbortSignal {
  return AbortSignal.any([Context.current().cancellationSignal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]);
}

/** One Web API call; Slack's answer when ok, else a failure, permanent for errors retrying cannot fix. */
async function callWebApi(
  settings: { botToken: string; apiUrl: string },
  method: string,
  body: Record<string, unknown>,
): Promise<{ channel?: unknown; ts?: unknown }> {
  const response = await fetch(`${settings.apiUrl}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${settings.botToken}` },
    body: JSON.stringify(body),
    signal: attemptSignal(),
  });
  if (!response.ok) {
    throw ApplicationFailure.retryable(`Slack answered ${response.status}`, 'ApproverSlackFailed');
  }
  const answer = (await response.json()) as { ok?: boolean; error?: string; channel?: unknown; ts?: unknown };
  if (answer.ok) return answer;
  if (answer.error && PERMANENT_ERRORS.has(answer.error)) refuseNotice(`Slack refused the message: ${answer.error}`);
  throw ApplicationFailure.retryable(
    `Slack refused the message: ${answer.error ?? 'unknown error'}`,
    'ApproverSlackFailed',
  );
}
