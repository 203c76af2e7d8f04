// `?after=` paging while messages are being written. The guarantee (docs/security.md,
// "Event log and ordering"): on one instance, a page never reaches past a message that is
// still being written, so a client that pages with `after=` never skips a message, even
// with several commit batches in flight (PostgreSQL). Across instances, see docs/api.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterAll(() => srv?.close());

describe('after= paging under concurrent writes', () => {
  it('never skips a message, whatever order the writes commit in', async () => {
    const w = await world(srv.url);
    const path = `/channels/${w.channel.id}/messages`;
    const posted: string[] = [];
    const seen = new Set<string>();
    let last = (await call(srv.url, 'POST', path, { auth: w.owner.auth, body: { content: 'start' } })).body.id as string;
    let writing = true;

    const writers = Array.from({ length: 8 }, async (_, k) => {
      for (let i = 0; i < 40; i++) {
        const r = await call(srv.url, 'POST', path, { auth: k % 2 ? w.bot.auth : w.owner.auth, body: { content: `m${k}.${i}` } });
        expect(r.status).toBe(201);
        posted.push(r.body.id);
      }
    });
    const reader = (async () => {
      // Keep paging until the writers are done and one last page comes back empty.
      for (;;) {
        const done = !writing;
        const page = await call(srv.url, 'GET', `${path}?after=${last}&limit=100`, { auth: w.owner.auth });
        expect(page.status).toBe(200);
        for (const m of page.body as Array<{ id: string }>) seen.add(m.id);
        if (page.body.length > 0) last = page.body[0].id; // newest first
        if (done && page.body.length === 0) return;
      }
    })();
    await Promise.all(writers);
    writing = false;
    await reader;
    expect(posted).toHaveLength(320);
    expect(posted.filter((id) => !seen.has(id))).toEqual([]);
  });
});
