/**
 * The live list: the pages showing the same list (same principal and groups, agent filter and order)
 * share one poller that re-lists about once a second and sends the list to every page when it
 * changed. Polling, rather than following tasks, is what notices everything a page must show: a
 * question answered over A2A or the CLI, a new task's question, a deadline that passed, on any
 * gateway; visibility itself is a second or so behind.
 *
 * Every list is a page of the gateway's one index of waiting questions (src/tasks/waiting-index.ts,
 * in its TaskChanges, which the metrics count too), which asks visibility only what changed since it last looked. Its first look lists every waiting
 * question (about 1 ms of the dev server's CPU per row: 0.45 s with 1,000 waiting; bench/README.md,
 * paths 10 and 11), and so does a look every few minutes. A poller
 * therefore waits at least LIST_COST_FACTOR times its last list's duration before the next: each
 * open list costs the store at most a fifth of its time, and a long list is refreshed less often
 * rather than piling load on Temporal.
 */
import type { Response } from 'express';
import { logger } from '../../logging.js';
import type { Caller } from '../../protocol/caller.js';
import type { QuestionOrder, WaitingForPage, WaitingQuestions } from '../../tasks/index.js';

const LIVE_POLL_MS = 1_000;
/** The pause after a list is at least this many times as long as the list took. */
const LIST_COST_FACTOR = 4;
/** Rows a page shows at most: one visibility page; the page says when more wait. */
export const INBOX_PAGE_ROWS = 500;

export interface ListKey {
  caller?: Caller;
  agent?: string;
  order: QuestionOrder;
}

/** A page of a list: its first page, or the one after `after` (a page's `next`), of at most `limit` rows. */
export interface PageRequest {
  after?: string;
  limit?: number;
}

interface Poller {
  pages: Set<Response>;
  /** The last list sent, as sent (compared as text: a change anywhere is a change). */
  last?: string;
  timer?: NodeJS.Timeout;
}

export class LiveLists {
  private readonly pollers = new Map<string, Poller>();

  /** `questions`: every list's rows, the gateway's one index of the waiting questions. */
  constructor(
    private readonly questions: WaitingQuestions,
    private readonly pollMs = LIVE_POLL_MS,
  ) {}

  /** One page of a list, once. */
  list(key: ListKey, page: PageRequest = {}): Promise<WaitingForPage> {
    return this.questions.page({
      order: key.order,
      limit: Math.min(page.limit ?? INBOX_PAGE_ROWS, INBOX_PAGE_ROWS),
      ...(page.after && { after: page.after }),
      ...(key.caller && { caller: key.caller }),
      ...(key.agent && { agent: key.agent }),
    });
  }

  /** Streams the list to `res` (an open event stream) until it closes. */
  follow(key: ListKey, res: Response): void {
    const id = JSON.stringify([key.caller?.id, key.caller?.groups, key.agent, key.order]);
    let poller = this.pollers.get(id);
    if (!poller) {
      poller = { pages: new Set() };
      this.pollers.set(id, poller);
      this.poll(id, key, poller);
    } else if (poller.last !== undefined) {
      send(res, 'questions', poller.last);
    }
    poller.pages.add(res);
    res.on('close', () => {
      poller.pages.delete(res);
      if (poller.pages.size > 0) return;
      clearTimeout(poller.timer);
      this.pollers.delete(id);
    });
  }

  /** Pollers running now (tests and metrics). */
  get size(): number {
    return this.pollers.size;
  }

  private poll(id: string, key: ListKey, poller: Poller): void {
    const started = Date.now();
    this.list(key)
      .then(
        (page) => {
          const text = JSON.stringify({ ...page, at: new Date().toISOString() });
          // Compared without the time it was listed at, which always changes.
          if (poller.last === undefined || withoutTime(poller.last) !== withoutTime(text)) {
            poller.last = text;
            for (const res of poller.pages) send(res, 'questions', text);
          }
        },
        (error: unknown) => {
          logger.warn({ err: error, component: 'inbox' }, 'Listing the waiting questions failed');
          for (const res of poller.pages) send(res, 'problem', JSON.stringify({ message: 'The list is out of date' }));
        },
      )
      .finally(() => {
        // The next poll is timed from the end of this one, so a slow Temporal never stacks them up.
        const pause = Math.max(this.pollMs, LIST_COST_FACTOR * (Date.now() - started));
        if (this.pollers.get(id) === poller) poller.timer = setTimeout(() => this.poll(id, key, poller), pause);
      });
  }
}

function withoutTime(text: string): string {
  return text.slice(0, text.lastIndexOf(',"at":'));
}

export function openEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  // Proxies (nginx) must pass events through at once.
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

function send(res: Response, event: string, data: string): void {
  if (!res.writableEnded) res.write(`event: ${event}\ndata: ${data}\n\n`);
}
