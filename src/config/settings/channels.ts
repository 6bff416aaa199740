/** How workers reach approvers and gateways take their answers (see [Notifying approvers](channels.md)). */
import { duration, flag, group, httpUrl, oneOf, port, secretOf, setting, text } from '../setting.js';
import { MIN_SECRET_BYTES } from './auth.js';

export const CHANNEL_SETTINGS = group('channels', {
  A2A_APPROVER_DIRECTORY: setting({
    parse: text,
    defaultText: "the config's `approvals.directory`",
    projectKey: 'approvals.directory',
    description: 'The approver directory (JSON): who is reached how, and who is in which group.',
  }),
  A2A_APPROVER_WEBHOOK_URL: setting({
    parse: httpUrl,
    secret: true,
    description: 'The webhook notices go to for approvers without one of their own.',
  }),
  A2A_SMTP_HOST: setting({ parse: text, defaultText: 'none: no email channel', description: 'The SMTP server.' }),
  A2A_SMTP_PORT: setting({
    parse: port,
    defaultText: '`587` (`465` with `A2A_SMTP_TLS=implicit`)',
    description: "The SMTP server's port.",
  }),
  A2A_SMTP_TLS: setting({
    parse: oneOf(['implicit', 'starttls', 'none']),
    defaultText: '`starttls` (`implicit` on port 465)',
    description: '`implicit` (TLS from the start), `starttls` (required), or `none` (a relay on the same host).',
  }),
  A2A_SMTP_USER: setting({ parse: text, description: 'SMTP authentication: the user (with A2A_SMTP_PASSWORD).' }),
  A2A_SMTP_PASSWORD: setting({ parse: text, secret: true, description: 'SMTP authentication: the password.' }),
  A2A_SMTP_FROM: setting({ parse: text, description: 'The sender address; required with A2A_SMTP_HOST.' }),
  A2A_SLACK_BOT_TOKEN: setting({
    parse: text,
    secret: true,
    defaultText: 'none: no Slack channel',
    description: 'A Slack bot token with `chat:write` (or A2A_SLACK_WEBHOOK_URL).',
  }),
  A2A_SLACK_WEBHOOK_URL: setting({
    parse: httpUrl,
    secret: true,
    description: "A Slack incoming webhook's URL (or A2A_SLACK_BOT_TOKEN).",
  }),
  A2A_SLACK_API_URL: setting({
    parse: httpUrl,
    default: 'https://slack.com/api',
    description: "Slack's Web API, or a proxy of it.",
  }),
  A2A_SLACK_INTERACTIVE: setting({
    parse: flag,
    default: false,
    description: 'Approve / Deny buttons in Slack messages (with a bot token).',
  }),
  A2A_SLACK_SIGNING_SECRET: setting({
    parse: text,
    secret: true,
    defaultText: 'none: no Slack buttons',
    description: "The Slack app's signing secret: the gateway answers button clicks.",
  }),
  A2A_APPROVAL_LINK_SECRET: setting({
    parse: secretOf(MIN_SECRET_BYTES),
    secret: true,
    defaultText: 'none: no answer links in emails',
    description: 'The key one-click Approve / Deny links in emails are signed with; workers and gateways alike.',
  }),
  A2A_APPROVAL_LINK_TTL: setting({
    parse: duration,
    default: 7 * 24 * 60 * 60 * 1000,
    defaultText: '`7 days`',
    description: "The longest an answer link lasts (never past its question's deadline).",
  }),
});
