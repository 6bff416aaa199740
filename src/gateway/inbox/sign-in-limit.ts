/**
 * How fast the sign-in form may be tried: per client address, every attempt (a wrong key costs as
 * much as a right one, so guessing is slow and the log is not flooded); per principal, every
 * successful sign-in (no one mints sessions in bulk). In this gateway process's memory
 * (auth/rate-limit.ts): N gateways behind a balancer allow up to N times as many.
 */
import type { Request } from 'express';
import type { Authenticator } from '../auth/authenticator.js';
import type { Principal } from '../auth/principal.js';
import { RateLimit } from '../auth/rate-limit.js';

/** Attempts a minute from one client address (as many at once). */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 20;
/** Sign-ins a minute as one principal (as many at once). */
export const SIGN_INS_PER_MINUTE = 20;

export class SignInLimit {
  private readonly byAddress = new RateLimit(SIGN_IN_ATTEMPTS_PER_MINUTE);
  private readonly byPrincipal = new RateLimit(SIGN_INS_PER_MINUTE);

  constructor(private readonly authenticator: Authenticator) {}

  /** Takes an attempt for the request's client; the seconds to wait when none is left, else 0. */
  attempt(req: Request): number {
    return this.byAddress.take(clientAddress(req, this.authenticator));
  }

  /** Takes a sign-in for `principal`; the seconds to wait when none is left, else 0. */
  signIn(principal: Principal): number {
    return this.byPrincipal.take(principal.id);
  }
}

/**
 * Who is asking: the connection's peer, or, when the request proves it comes through the
 * authenticating proxy (its secret header), the address that proxy appended to X-Forwarded-For:
 * the last one, as anything before it is what the client itself sent.
 */
function clientAddress(req: Request, authenticator: Authenticator): string {
  const peer = req.socket.remoteAddress ?? '';
  if (!authenticator.fromTrustedProxy((name) => req.get(name))) return peer;
  const forwarded = (req.get('x-forwarded-for') ?? '').split(',').map((hop) => hop.trim());
  return forwarded.at(-1) || peer;
}
