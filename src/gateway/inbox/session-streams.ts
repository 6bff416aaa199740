/**
 * The live streams this gateway holds, by session, each ended with a `signed-out` event when its
 * session ends: at its expiry; at once when the session signs out through this gateway; and, when
 * it signs out through another one, at the next look at the sign-outs recorded since the last
 * (every RECHECK_MS while signed-in streams are open). A request is checked when it arrives; a
 * stream is one request that lasts, hence the look. That look is one visibility query per gateway,
 * whatever the number of open pages, rather than one describe per page: visibility is a second or
 * so behind, so a stream on another gateway ends within RECHECK_MS and that delay.
 */
import type { Response } from 'express';
import { logger } from '../../logging.js';
import type { Session } from './session.js';
import type { SignOuts } from './sign-outs.js';

/** How often the open streams' sessions are checked against the sign-outs other gateways recorded. */
const RECHECK_MS = 5_000;
/**
 * Each look lists the sign-outs from this long before the last: visibility's delay, and the
 * difference between this gateway's clock and Temporal's, must not hide one.
 */
const OVERLAP_MS = 30_000;
/** setTimeout's longest delay (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SessionStreams {
  private readonly open = new Map<string, { session: Session; streams: Set<Response> }>();
  private recheckTimer?: NodeJS.Timeout;
  /** Sign-outs from then on are looked for; undefined while no signed-in stream is open. */
  private lookedAt?: number;

  constructor(
    private readonly signOuts: SignOuts,
    private readonly recheckMs = RECHECK_MS,
  ) {}

  /** Holds `res`, an open event stream of `session`, until it closes or the session ends. */
  hold(session: Session, res: Response): void {
    let entry = this.open.get(session.id);
    if (!entry) {
      entry = { session, streams: new Set() };
      this.open.set(session.id, entry);
    }
    entry.streams.add(res);
    const ms = Math.min(Math.max(0, session.expiresAt - Date.now()), MAX_TIMER_MS);
    const expiry = setTimeout(() => signedOut(res), ms);
    res.on('close', () => {
      clearTimeout(expiry);
      entry.streams.delete(res);
      if (entry.streams.size === 0 && this.open.get(session.id) === entry) this.open.delete(session.id);
      this.schedule();
    });
    this.schedule();
  }

  /** Ends every stream of the session `id` (signed out through this gateway). */
  end(id: string): void {
    for (const res of this.open.get(id)?.streams ?? []) signedOut(res);
  }

  /** Checks only while signed-in streams are open: an idle gateway asks Temporal nothing. */
  private schedule(): void {
    const wanted = [...this.open.values()].some(({ session }) => session.principal !== undefined);
    if (wanted && !this.recheckTimer) {
      // The streams' own requests were checked just now.
      this.lookedAt ??= Date.now();
      this.recheckTimer = setTimeout(() => void this.recheck(), this.recheckMs).unref();
    } else if (!wanted) {
      clearTimeout(this.recheckTimer);
      this.recheckTimer = undefined;
      this.lookedAt = undefined;
    }
  }

  private async recheck(): Promise<void> {
    const now = Date.now();
    try {
      for (const id of await this.signOuts.signedOutSince((this.lookedAt ?? now) - OVERLAP_MS)) this.end(id);
      this.lookedAt = now;
    } catch (error) {
      // Temporal out of reach: the stream's list says so already; the next look covers this one's time.
      logger.debug({ err: error, component: 'inbox' }, 'Listing the sign-outs failed');
    }
    this.recheckTimer = undefined;
    this.schedule();
  }
}

/** The page learns its session ended; it would get 401s from here on. */
function signedOut(res: Response): void {
  if (!res.writableEnded) res.end('event: signed-out\ndata: {}\n\n');
}
