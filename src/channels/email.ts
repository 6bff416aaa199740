/**
 * The email channel: one message per notice over SMTP (nodemailer), plain text and HTML. Set up from
 * the worker's A2A_SMTP_* settings (src/config/settings/channels.ts).
 *
 * Every attempt of one notice sends the same Message-ID (derived from its idempotency key), so a
 * retry after a lost acknowledgement threads with, and is dropped by clients as, the message before.
 */
import { createHash } from 'node:crypto';
import { createTransport } from 'nodemailer';
import type { ApproverNotice } from '../protocol/approvals.js';
import type { AnswerLinks } from './answer-links.js';
import { noticeHtml, noticeSubject, noticeText } from './notice-text.js';
import { ConfigError } from '../config/config-error.js';
import type { Settings } from '../config/settings.js';

export const SMTP_ENV = {
  host: 'A2A_SMTP_HOST',
  port: 'A2A_SMTP_PORT',
  tls: 'A2A_SMTP_TLS',
  user: 'A2A_SMTP_USER',
  password: 'A2A_SMTP_PASSWORD',
  from: 'A2A_SMTP_FROM',
} as const;

type TlsMode = NonNullable<Settings['A2A_SMTP_TLS']>;

export interface SmtpSettings {
  host: string;
  port: number;
  tls: TlsMode;
  auth?: { user: string; pass: string };
  from: string;
}

/** The SMTP settings, or undefined when A2A_SMTP_HOST is unset (no email channel). */
export function smtpSettingsFromEnv(
  env: Pick<Settings, (typeof SMTP_ENV)[keyof typeof SMTP_ENV]>,
): SmtpSettings | undefined {
  const host = env[SMTP_ENV.host];
  if (!host) return undefined;
  const from = env[SMTP_ENV.from];
  if (!from) throw new ConfigError(`${SMTP_ENV.host} is set: set ${SMTP_ENV.from} too (the sender address)`);
  const tlsMode = env[SMTP_ENV.tls];
  const port = env[SMTP_ENV.port] ?? (tlsMode === 'implicit' ? 465 : 587);
  const tls = tlsMode ?? (port === 465 ? 'implicit' : 'starttls');
  const user = env[SMTP_ENV.user];
  const pass = env[SMTP_ENV.password];
  if (Boolean(user) !== Boolean(pass)) {
    throw new ConfigError(`Set both ${SMTP_ENV.user} and ${SMTP_ENV.password}, or neither`);
  }
  return { host, port, tls, from, ...(user && pass && { auth: { user, pass } }) };
}

/**
 * What the channel activity needs of a mail sender; the SMTP failure it throws carries `responseCode`.
 * `answers`: the one-click Approve / Deny links, when the worker has A2A_APPROVAL_LINK_SECRET.
 */
export type EmailSender = (
  /** The approver's address, from the directory. */
  to: string,
  /** What to tell. */
  notice: ApproverNotice,
  /** The task's page in the approvals inbox. */
  link: string,
  /** The one-click Approve / Deny links, for a notice that asks. */
  answers?: AnswerLinks,
) => Promise<void>;

export function smtpSender(settings: SmtpSettings): EmailSender {
  const transport = createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.tls === 'implicit',
    requireTLS: settings.tls === 'starttls',
    ignoreTLS: settings.tls === 'none',
    ...(settings.auth && { auth: settings.auth }),
    // Each attempt ends well inside the activity's 45 s start-to-close timeout.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  const domain = settings.from.split('@').pop()?.replace(/[>\s]/g, '') || 'a2a-temporal';
  return async (to, notice, link, answers) => {
    await transport.sendMail({
      from: settings.from,
      to,
      subject: noticeSubject(notice),
      text: noticeText(notice, link, answers),
      html: noticeHtml(notice, link, answers),
      messageId: `<${createHash('sha256').update(notice.id).digest('hex').slice(0, 40)}@${domain}>`,
      headers: { 'X-A2A-Notification-Id': notice.id },
    });
  };
}

/** A permanent SMTP refusal (5xx: no such mailbox, authentication refused): trying again cannot help. */
export function isPermanentSmtpFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
