/**
 * How fast the web client's message list opens a long channel (the figures that
 * test/web/message-list.test.ts logged and asserted until 2026-11-29; the test keeps what
 * the list does, this script how long it takes).
 *
 *   npx tsx bench/message-list.ts [--messages 5000] [--runs 3]
 *
 * Starts Parley in this process on a fresh SQLite directory (test/harness.ts's
 * startServer, RATE_LIMITS=off), builds the web client if it is stale, seeds the world of
 * test/web/long-channel.ts (a channel of `--messages` messages, the newest a reply, and a
 * channel of 60), then, `--runs` times, in a fresh browser context of Debian's Chromium
 * (1280×860, the production build):
 *
 * 1. opens the short channel, then navigates cold to the long one: the time from that
 *    navigation until the newest message is wholly in view (the page's own clock), and the
 *    DOM elements then;
 * 2. switches to the short channel and back by the sidebar: the time from the click until
 *    the newest message is in view again.
 *
 * Prints each run and the medians against the targets of issue 13 (newest in view under
 * 2,500 ms, switching back under 1,500 ms, fewer than 2,500 DOM elements); exits 1 when a
 * median misses one.
 */
import { parseArgs } from 'node:util';
import { startServer } from '../test/harness.js';
import { ensureWebBuilt, launchBrowser, openPage } from '../test/web/browser.js';
import { longChannelWorld, whenInView } from '../test/web/long-channel.js';

// Page-side code in evaluate() callbacks (compiled without the DOM library).
declare const document: any;

const { values } = parseArgs({
  options: { messages: { type: 'string', default: '5000' }, runs: { type: 'string', default: '3' } },
});
const messages = Number(values.messages);
const runs = Number(values.runs);

const TARGETS = { inViewMs: 2500, backMs: 1500, domElements: 2500 } as const;
const LABELS = { inViewMs: 'newest in view, ms', backMs: 'switching back, ms', domElements: 'DOM elements' } as const;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

ensureWebBuilt();
const srv = await startServer({ env: { RATE_LIMITS: 'off' } });
const browser = await launchBrowser();
let failed = false;
try {
  const w = await longChannelWorld(srv.url, messages);
  const figures: Array<{ inViewMs: number; domElements: number; backMs: number }> = [];
  for (let run = 1; run <= runs; run++) {
    const o = await openPage(browser, srv.url, { token: w.bob.token, path: `/s/${w.serverId}/c/${w.shortId}`, height: 860 });
    try {
      const page = o.page;
      await page.locator('[role="log"][aria-busy="false"]').waitFor();
      await page.goto(`${srv.url}/s/${w.serverId}/c/${w.longId}`);
      const inViewMs = await whenInView(page, w.replyId);
      const domElements = await page.evaluate(() => document.querySelectorAll('*').length);
      await page.getByRole('link', { name: /short/ }).first().click();
      await page.locator(`[data-message-id="${w.replyId}"]`).waitFor({ state: 'detached' });
      const t0 = await page.evaluate(() => performance.now());
      await page
        .getByRole('link', { name: /long-history/ })
        .first()
        .click();
      const backMs = (await whenInView(page, w.replyId)) - t0;
      if (o.errors.length > 0) throw new Error(`the page threw: ${o.errors.join('; ')}`);
      figures.push({ inViewMs, domElements, backMs });
      console.log(
        `run ${run}: newest in view ${Math.round(inViewMs)} ms after navigation, ${domElements} DOM elements; switching back ${Math.round(backMs)} ms`,
      );
    } finally {
      await o.context.close();
    }
  }
  console.log(`\n${messages.toLocaleString('en')} messages, median of ${runs} runs (target):`);
  for (const key of ['inViewMs', 'backMs', 'domElements'] as const) {
    const m = median(figures.map((f) => f[key]));
    const ok = m < TARGETS[key];
    if (!ok) failed = true;
    console.log(`  ${LABELS[key].padEnd(20)} ${String(Math.round(m)).padStart(6)}  (< ${TARGETS[key]})  ${ok ? 'ok' : 'MISSED'}`);
  }
} finally {
  await browser.close();
  await srv.close();
}
process.exit(failed ? 1 : 0);
