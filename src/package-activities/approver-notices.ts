/**
 * The worker's approver-notification activities (src/workflows/approver-notifications.ts schedules
 * them): resolving a question's responders (and its deputies) through the directory, and sending one notice by one
 * channel. Addresses are looked up here, per attempt, and leave only masked: in the receipt the
 * task records, in logs, and in failure messages (which Temporal history keeps).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { JWK } from 'jose';
import {
  NOTIFY_APPROVER_ACTIVITY,
  RESOLVE_APPROVERS_ACTIVITY,
  type ApproverNotice,
  type NoticeReceipt,
  type ResolveApproversInput,
  type ResolvedApprovers,
} from '../protocol/approvals.js';
import { withoutTrailingSlashes } from '../protocol/base-url.js';
import { notificationSigner } from '../push/signing.js';
import { pushUrlPolicyFromEnv, type PushUrlPolicy } from '../push/url-policy.js';
import { RESOLVE_DEPUTIES_ACTIVITY, type ResolveDeputiesInput, type ResolvedDeputies } from '../protocol/deputies.js';
import {
  approverDirectorySource,
  deputiesFromDirectory,
  parseDirectory,
  readDirectory,
  resolveApprovers,
  type ApproverDirectory,
} from '../channels/directory.js';
import { answerLinks, answerLinkSettingsFromEnv, type AnswerLinkSettings } from '../channels/answer-links.js';
import {
  isPermanentSmtpFailure,
  smtpSender,
  smtpSettingsFromEnv,
  SMTP_ENV,
  type EmailSender,
} from '../channels/email.js';
import { refuseNotice } from '../channels/failures.js';
import { maskEmail, maskSlackUser, maskUrl } from '../channels/mask.js';
import {
  postToSlack,
  SLACK_ENV,
  slackSettingsFromEnv,
  updateSlackMessages,
  type SlackSettings,
} from '../channels/slack.js';
import { inboxTaskUrl, publicUrlFromEnv } from '../channels/notice-text.js';
import { APPROVER_WEBHOOK_ENV, postNotice } from '../channels/webhook.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

/** How the worker reaches approvers: the directory and each channel's settings, each defaulting to the worker's settings. */
export interface ApproverChannelOptions {
  /** The directory file's path, or the directory itself. Default: A2A_APPROVER_DIRECTORY; none: principals only, no addresses. */
  directory?: string | ApproverDirectory;
  /** Sends an email; default: SMTP from the A2A_SMTP_* variables, none when A2A_SMTP_HOST is unset. */
  sendEmail?: EmailSender;
  /** Default: A2A_APPROVER_WEBHOOK_URL. */
  webhookUrl?: string;
  /** Default: A2A_SLACK_BOT_TOKEN or A2A_SLACK_WEBHOOK_URL (and A2A_SLACK_API_URL). */
  slack?: SlackSettings;
  /** Base of the inbox links. Default: A2A_PUBLIC_URL. */
  publicUrl?: string;
  /** Which webhook hosts may be reached although they resolve inward. Default: A2A_PUSH_ALLOWED_HOSTS. */
  policy?: PushUrlPolicy;
  /** The private JWK webhook notices are signed with. Default: A2A_PUSH_SIGNING_KEY; none: unsigned. */
  signingKey?: JWK;
  /** One-click Approve / Deny links in emails (answer-links.ts). Default: from A2A_APPROVAL_LINK_SECRET; false: none. */
  answerLinks?: AnswerLinkSettings | false;
}

/** Sets the channels up now (a bad A2A_SMTP_* setting stops the worker at start, naming it). */
export function createApproverActivities(options: ApproverChannelOptions | undefined, env: Settings) {
  options ??= {};
  const smtp = options.sendEmail ? undefined : smtpSettingsFromEnv(env);
  const sendEmail = options.sendEmail ?? (smtp && smtpSender(smtp));
  const webhookUrl = options.webhookUrl ?? env[APPROVER_WEBHOOK_ENV];
  const slackSettings = options.slack ?? slackSettingsFromEnv(env);
  const publicUrl = options.publicUrl ? withoutTrailingSlashes(options.publicUrl) : publicUrlFromEnv(env);
  const policy = options.policy ?? pushUrlPolicyFromEnv(env);
  const signingKey = options.signingKey ?? env.A2A_PUSH_SIGNING_KEY;
  const sign = signingKey && notificationSigner(signingKey);
  const source = approverDirectorySource(options.directory, env);
  const links = options.answerLinks === undefined ? answerLinkSettingsFromEnv(env) : options.answerLinks || undefined;

  async function directory(): Promise<ApproverDirectory> {
    try {
      if (source === undefined) return parseDirectory({}, '(none)');
      return typeof source === 'string' ? await readDirectory(source) : parseDirectory(source, '(given)');
    } catch (error) {
      // A directory that is missing or wrong stays wrong on retry: fixed by its owner, not by time.
      if (error instanceof ConfigError) refuseNotice(error.message);
      throw error;
    }
  }

  async function email(notice: ApproverNotice, link: string): Promise<NoticeReceipt> {
    if (!sendEmail) {
      refuseNotice(`The email channel is not set up on this worker: set ${SMTP_ENV.host} and ${SMTP_ENV.from}`);
    }
    const address = (await directory()).principals[notice.approver]?.email;
    if (!address) refuseNotice(`The approver directory has no email address for ${notice.approver}`);
    const to = maskEmail(address);
    try {
      await sendEmail(address, notice, link, links && answerLinks(publicUrl, links, notice));
    } catch (error) {
      // A mail server's answer often quotes the recipient: masked before Temporal keeps it.
      const reason = (error instanceof Error ? error.message : String(error)).split(address).join(to);
      if (isPermanentSmtpFailure(error)) refuseNotice(`The mail server refused the message: ${reason}`);
      throw ApplicationFailure.retryable(`Sending the email failed: ${reason}`, 'ApproverEmailFailed');
    }
    return { to };
  }

  async function webhook(notice: ApproverNotice, link: string): Promise<NoticeReceipt> {
    const url = (await directory()).principals[notice.approver]?.webhook ?? webhookUrl;
    if (!url) refuseNotice(`No webhook for ${notice.approver}: set ${APPROVER_WEBHOOK_ENV} or the directory's webhook`);
    await postNotice(url, notice, link, policy, sign);
    return { to: maskUrl(url) };
  }

  async function slack(notice: ApproverNotice, link: string): Promise<NoticeReceipt> {
    if (!slackSettings) {
      refuseNotice(
        `The Slack channel is not set up on this worker: set ${SLACK_ENV.botToken} or ${SLACK_ENV.webhookUrl}`,
      );
    }
    const user = (await directory()).principals[notice.approver]?.slack;
    if (!user) refuseNotice(`The approver directory has no Slack user for ${notice.approver}`);
    if (notice.update?.length) {
      await updateSlackMessages(slackSettings, notice.update, notice, link);
      return { to: maskSlackUser(user) };
    }
    const message = await postToSlack(slackSettings, user, notice, link);
    return { to: maskSlackUser(user), ...(message && { message }) };
  }

  const channels = { email, webhook, slack };

  return {
    async [RESOLVE_APPROVERS_ACTIVITY](input: ResolveApproversInput): Promise<ResolvedApprovers> {
      return resolveApprovers(await directory(), input);
    },
    async [RESOLVE_DEPUTIES_ACTIVITY](input: ResolveDeputiesInput): Promise<ResolvedDeputies> {
      return deputiesFromDirectory(await directory(), input, Date.now());
    },
    async [NOTIFY_APPROVER_ACTIVITY](notice: ApproverNotice): Promise<NoticeReceipt> {
      const link = inboxTaskUrl(publicUrl, notice);
      // A notice from a newer worker's workflow code, for a channel this one lacks: said, not retried.
      const send = Object.hasOwn(channels, notice.channel) ? channels[notice.channel] : undefined;
      if (!send) refuseNotice(`This worker has no ${String(notice.channel)} channel`);
      const receipt = await send(notice, link);
      Context.current().log.info('approver notified', { notice: notice.id, channel: notice.channel, to: receipt.to });
      return receipt;
    },
  };
}
