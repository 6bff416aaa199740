/**
 * Addresses as the task records them and logs print them: enough to tell which of a person's
 * addresses a notice went to, never the address itself (the task is readable by its approvers, and
 * Temporal history by operators).
 */

/** `alice.martin@example.com` → `a***@example.com`. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/** A webhook URL by its host alone: its path or query may hold a secret. */
export function maskUrl(url: string): string {
  try {
    return `webhook at ${new URL(url).host}`;
  } catch {
    return 'webhook';
  }
}

/** `U0123ABCD` → `Slack user U01***`: which account, roughly, without naming it. */
export function maskSlackUser(user: string): string {
  return `Slack user ${user.slice(0, 3)}***`;
}
