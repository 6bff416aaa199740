/**
 * The live streams this gateway holds, by session, each ended with a `signed-out` event when its
 * session ends: at its expiry; at once when the session signs out through this gateway; and, when
 * it signs out through another one, at the next check of the sign-out records (every RECHECK_MS
 * while signed-in streams are open, one describe per session). A request is checked when it
 * arrives; a stream is one request that lasts, hence the re-check.
 */
import type { Response } from 'express';
import { logger } from '../../logging.js';
import type { Session } from './session.js';
import type { SignOuts } from './sign-outs.js';

/** How often the open streams' sessions are checked against the sign-outs other gateways recorded. */
const RECHECK_MS = 5_000;
/** setTimeout's longest delay (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SessionStreams {
  private readonly open = new Map<string, { session: Session; streams: Set<Response> }>();
  private recheckTimer?: NodeJS.Timeout;

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
      this.recheckTimer = setTimeout(() => void this.recheck(), this.recheckMs).unref();
    } else if (!wanted) {
      clearTimeout(this.recheckTimer);
      this.recheckTimer = undefined;
    }
  }

  private async recheck(): Promise<void> {
    const sessions = [...this.open.values()].map(({ session }) => session).filter((session) => session.principal);
    await Promise.all(
      sessions.map((session) =>
        this.signOuts.signedOut(session).then(
          (out) => out && this.end(session.id),
          // Temporal out of reach: the stream's list reports that already; checked again next time.
          (error: unknown) => logger.debug({ err: error, component: 'inbox' }, 'Checking a sign-out failed'),
        ),
      ),
    );
    this.recheckTimer = undefined;
    this.schedule();
  }
}

/** The page learns its session ended; it would get 401s from here on. */
function signedOut(res: Response): void {
  if (!res.writableEnded) res.end('event: signed-out\ndata: {}\n\n');
}
