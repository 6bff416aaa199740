/**
 * Path 12: an approver's click in the inbox, to the page showing the task completed. A real
 * Chromium (Debian's /usr/bin/chromium, driven by playwright-core, as test/inbox does) opens an
 * expense-approval task's page and clicks Approve; the page itself times the click's submit event
 * to the moment its outcome reads "The task is done" (a MutationObserver: the DOM changed, before
 * paint), so the browser's driver adds nothing. Against, interleaved: a blocking A2A reply to a
 * task of the same agent (path 3's project side), which is the target's reference, and the raw
 * floor's one Update. The page's own requests after the click (its POST, and any read of the task
 * before the outcome shows) are taken from the Resource Timing API: where the click's time goes.
 */
import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import { replyBlocking, waitingExpenseTask } from '../a2a.js';
import { interleave, percentile, Sample } from '../measure.js';
import type { BenchPath } from './types.js';

const CHROMIUM = '/usr/bin/chromium';
const AGENT = 'expense-approval';
const DONE = 'The task is done';

/** What the page measured for one click, in its own clock. */
interface ClickTiming {
  ms: number;
  /** Each request the page made after the click: which, and how long it took. */
  requests: { what: 'reply' | 'read'; ms: number }[];
}

export const inboxClick: BenchPath = {
  title: '12. inbox click → completed shown on the task page (against a blocking A2A reply; raw: one executeUpdate)',
  async run({ stack, options }) {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const url = stack.agentUrl(AGENT);
      const raw = new Sample();
      const a2a = new Sample();
      const inbox = new Sample();
      const requests: ClickTiming['requests'] = [];
      // The gateway's Temporal calls per answer: the A2A reply's, and the click's up to the page showing its outcome.
      const a2aCalls = stack.calls.project.recording();
      const inboxCalls = stack.calls.project.recording();
      await interleave(options.iterations, options.batches, {
        raw: async (size) => {
          for (let i = 0; i < size; i++) {
            const workflowId = await stack.raw.waiting();
            await raw.time(() => stack.raw.resume(workflowId, 'approve'));
          }
        },
        a2a: async (size) => {
          for (let i = 0; i < size; i++) {
            const taskId = await waitingExpenseTask(url);
            await a2a.time(() => a2aCalls.during(() => replyBlocking(url, taskId, 'approve')));
          }
        },
        project: async (size) => {
          for (let i = 0; i < size; i++) {
            await openTaskPage(page, stack.gatewayUrl, await waitingExpenseTask(url));
            const timing = await inboxCalls.during(() => clickApprove(page));
            inbox.latencies.push(timing.ms);
            requests.push(...timing.requests);
          }
        },
      });
      const p50Of = (what: 'reply' | 'read') =>
        percentile(
          requests.filter((request) => request.what === what).map((request) => request.ms),
          50,
        );
      const reads = requests.filter((request) => request.what === 'read').length / inbox.latencies.length;
      // The page shows the outcome from its POST's answer; a read of the task after it would be a regression.
      const rereads =
        reads > 0
          ? `its re-read of the task (${reads.toFixed(2)} per click) p50 ${p50Of('read').toFixed(1)} ms`
          : 'it read the task no more';
      const common = `${options.iterations} per side in ${options.batches} alternating batches`;
      return [
        {
          path: '12 inbox click',
          metric: 'click to completed shown: p50, against an A2A reply',
          unit: 'ms',
          raw: a2a.p(50),
          project: inbox.p(50),
          target: { kind: 'ratio-at-most', value: 1.2 },
          note:
            `${common}; "raw" here is a blocking A2A reply (JSON-RPC SendMessage) to the same agent; p95 A2A ${a2a.p(95).toFixed(1)} ms, inbox ${inbox.p(95).toFixed(1)} ms; ` +
            `after the click the page's POST took p50 ${p50Of('reply').toFixed(1)} ms and ${rereads}; ` +
            `the gateway's Temporal calls per A2A reply: ${a2aCalls.describe()}; per click: ${inboxCalls.describe()}`,
        },
        {
          path: '12 inbox click',
          metric: 'click to completed shown: p50, against raw',
          unit: 'ms',
          raw: raw.p(50),
          project: inbox.p(50),
          target: { kind: 'none' },
          note: `${common}; raw: one executeUpdate on a waiting workflow, p50 ${raw.p(50).toFixed(1)} ms; the A2A reply is ${(a2a.p(50) / raw.p(50)).toFixed(2)}x raw`,
        },
      ];
    } finally {
      await browser.close();
    }
  },
};

const approveButton = (page: Page) => page.locator('form.approve button');

/** Opens the task's page, its question shown, and sets the page up to time the click. */
async function openTaskPage(page: Page, gatewayUrl: string, taskId: string): Promise<void> {
  await page.goto(`${gatewayUrl}/inbox/task?${new URLSearchParams({ agent: AGENT, id: taskId })}`);
  await approveButton(page).waitFor({ state: 'visible' });
  // In the page (no DOM types here: the bench is compiled for Node).
  await page.evaluate((done) => {
    const { document, MutationObserver, performance } = globalThis as any;
    const timing = globalThis as any;
    const outcome = document.getElementById('outcome');
    document.addEventListener('submit', () => (timing.clicked = performance.now()), { capture: true, once: true });
    new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
      if (!String(outcome.textContent).includes(done)) return;
      timing.shown = performance.now();
      observer.disconnect();
    }).observe(outcome, { childList: true, characterData: true, subtree: true });
  }, DONE);
}

/** Clicks Approve; what the page timed. */
async function clickApprove(page: Page): Promise<ClickTiming> {
  await approveButton(page).click();
  const handle = await page.waitForFunction(() => {
    const { clicked, shown, performance } = globalThis as any;
    if (clicked === undefined || shown === undefined) return undefined;
    const requests = (
      performance.getEntriesByType('resource') as { name: string; startTime: number; duration: number }[]
    )
      .filter((entry) => entry.startTime >= clicked && entry.startTime <= shown && entry.name.includes('/api/tasks/'))
      .map((entry) => ({ what: entry.name.endsWith('/reply') ? 'reply' : 'read', ms: entry.duration }));
    return { ms: shown - clicked, requests };
  });
  return (await handle.jsonValue()) as ClickTiming;
}
