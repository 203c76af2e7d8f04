/**
 * A channel with a long history for the message-list suite (test/web/message-list.test.ts)
 * and its benchmark (bench/message-list.ts): the world they both open, and the wait for a
 * message to come into the list's view.
 */
import type { Page } from 'playwright-core';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { screenshot } from './browser.js';

// Page-side code in waitForFunction()/evaluate() callbacks (the tests compile without the DOM library).
declare const document: any;

export interface LongChannelWorld {
  owner: TestUser;
  bob: TestUser;
  serverId: string;
  longId: string;
  shortId: string;
  /** Ids of the long channel's messages, oldest first. */
  ids: string[];
  /** The newest message of the long channel: a reply to its fifth message. */
  replyId: string;
}

/** Posts `count` messages, `parallel` at a time, alternating two authors; returns their ids in order. */
async function seed(
  base: string,
  channelId: string,
  authors: TestUser[],
  count: number,
  text: (i: number) => string,
  parallel = 24,
): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const author = authors[Math.floor(i / 3) % authors.length] as TestUser;
      const m = await postMessage(base, author.auth, channelId, text(i));
      ids[i] = m.id;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  // Posted in parallel, so the service's order is the ids' order.
  return ids.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
}

/**
 * Olive's server "Archive" with Bob in it: #long-history of `long` messages (the newest a
 * reply to the fifth) and #short of 60. The server needs RATE_LIMITS=off.
 */
export async function longChannelWorld(base: string, long: number): Promise<LongChannelWorld> {
  const tag = Math.random().toString(36).slice(2, 6);
  const owner = await registerUser(base, `olive_${tag}`);
  const bob = await registerUser(base, `bob_${tag}`);
  const { server } = await createServer(base, owner, 'Archive');
  await joinServer(base, owner, bob, server.id);
  const longChannel = await createChannel(base, owner, server.id, 'long-history');
  const short = await createChannel(base, owner, server.id, 'short');
  const started = Date.now();
  const ids = await seed(base, longChannel.id, [owner, bob], long - 1, (i) =>
    i % 7 === 0 ? `Entry ${i}: a longer one\nwith a second line\nand a third` : `Entry ${i} in the long history`,
  );
  const reply = await call(base, 'POST', `/channels/${longChannel.id}/messages`, {
    auth: bob.auth,
    body: { content: 'Answering the fifth entry', messageReference: { messageId: ids[4] } },
  });
  if (reply.status !== 201) throw new Error(`the reply was refused: ${reply.status} ${reply.text}`);
  ids.push(reply.body.id);
  console.log(`seeded ${ids.length} messages in ${Date.now() - started} ms`);
  await seed(base, short.id, [owner, bob], 60, (i) => `Short ${i}`);
  return { owner, bob, serverId: server.id, longId: longChannel.id, shortId: short.id, ids, replyId: reply.body.id };
}

/** Resolves with the page's clock (ms since navigation) once the message is wholly inside the list's view. */
export function whenInView(page: Page, id: string, timeout = 15_000): Promise<number> {
  return page
    .waitForFunction(
      (mid) => {
        const el = document.querySelector(`[data-message-id="${mid}"]`);
        const box = el?.closest('[role="log"]')?.getBoundingClientRect();
        if (!el || !box) return false;
        const r = el.getBoundingClientRect();
        return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 ? performance.now() : false;
      },
      id,
      { polling: 'raf', timeout },
    )
    .then((h) => h.jsonValue() as Promise<number>)
    .catch(async (err) => {
      // Say where the list was instead, with a picture of it.
      await screenshot(page, `message-list-not-in-view-${id}`).catch(() => undefined);
      const where = await page
        .evaluate((mid) => {
          const scroller = document.querySelector('[role="log"]');
          const el = document.querySelector(`[data-message-id="${mid}"]`);
          return JSON.stringify({
            scrollTop: scroller?.scrollTop,
            scrollHeight: scroller?.scrollHeight,
            clientHeight: scroller?.clientHeight,
            drawn: document.querySelectorAll('[data-message-id]').length,
            target: el ? el.getBoundingClientRect().toJSON() : null,
          });
        }, id)
        .catch(() => 'unknown');
      throw new Error(`message ${id} not in view: ${where}`, { cause: err });
    });
}
