/**
 * The generic webhook channel (Teams, PagerDuty, a chat bridge, anything that takes a POST): each
 * notice is POSTed as JSON to the approver's own webhook (the directory's `webhook`) or to
 * A2A_APPROVER_WEBHOOK_URL, exactly as push notifications are sent: the same SSRF guard
 * (A2A_PUSH_ALLOWED_HOSTS), the same `X-A2A-Notification-Id` (the notice's idempotency key: dedupe
 * on it) and, with A2A_PUSH_SIGNING_KEY, the same signature header over the body.
 */
import { deliverNotification } from '../package-activities/push.js';
import type { NotificationSigner } from '../push/signing.js';
import type { PushUrlPolicy } from '../push/url-policy.js';
import type { ApproverNotice } from '../protocol/approvals.js';
import { noticeSubject, noticeText } from './notice-text.js';

export const APPROVER_WEBHOOK_ENV = 'A2A_APPROVER_WEBHOOK_URL';

/** The JSON a webhook receives: the notice's facts, a ready-made subject and text, and the inbox link. */
function webhookBody(notice: ApproverNotice, link: string): Record<string, unknown> {
  const { id, channel: _channel, ...facts } = notice;
  return { notificationId: id, ...facts, link, subject: noticeSubject(notice), text: noticeText(notice, link) };
}

export function postNotice(
  url: string,
  notice: ApproverNotice,
  link: string,
  policy: PushUrlPolicy,
  sign?: NotificationSigner,
): Promise<void> {
  return deliverNotification(
    { config: { id: 'approver-webhook', url }, notificationId: notice.id, body: webhookBody(notice, link) },
    policy,
    sign,
    'application/json',
  );
}
