/**
 * The inbox's browser-facing defences: a Content-Security-Policy that lets the pages run only their
 * own script and style files (no inline code, no framing, forms and fetches to this origin only), and
 * a cross-site request check on every state-changing request: it must come from a page of this
 * origin (Sec-Fetch-Site / Origin, when the browser sends them) and carry the session's CSRF token.
 */
import type { Request, RequestHandler, Response } from 'express';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const CSRF_HEADER = 'x-csrf-token';

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  next();
};

/**
 * Whether the request comes from a page of this origin, as far as the browser tells: a browser sends
 * Sec-Fetch-Site (and Origin) on every POST; a non-browser client sends neither and is judged by the
 * CSRF token alone (it could forge these headers anyway, but it has no victim's cookies).
 *
 * Origin `null` is what a browser sends for a form POST from a page whose policy is no-referrer (every
 * page here: the email link's confirmation page is one): it then counts only when Sec-Fetch-Site says
 * same-origin. The browser sets that header itself (no script can), and says cross-site for another
 * site's page, whose no-referrer form says `null` too; a browser without Fetch Metadata (before Safari
 * 16.4) is refused rather than trusted on a `null`. The pages keep no-referrer rather than a policy
 * such as same-origin, which would make Chromium send the real Origin: the confirmation page's URL
 * carries its link's token, which would then go out as the Referer of its every request.
 */
export function fromThisOrigin(req: Request, publicOrigin: string): boolean {
  const site = req.get('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = req.get('origin');
  if (origin === undefined) return true;
  if (origin === 'null') return site === 'same-origin';
  const own = [publicOrigin, `${req.protocol}://${req.get('host') ?? ''}`];
  return own.includes(origin);
}

/** Whether cookies should be Secure: the gateway is reached over https. */
export function isHttps(req: Request, publicOrigin: string): boolean {
  return req.secure || publicOrigin.startsWith('https:');
}

export function refuse(res: Response, status: number, message: string, kind = 'refused'): void {
  res.status(status).json({ error: { kind, message } });
}
