/**
 * Message search in the store, on every database: the same cases run on SQLite (FTS5)
 * and on PostgreSQL (tsvector and GIN) when DATABASE_URL is set, through the dialect's
 * `fullText` capability. Matching, the channel set as the only scope, the filters, and the
 * index following inserts, edits and deletes (cascades included).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { MessageSearch } from '../../src/store/repos/search.js';
import type { MessageTable } from '../../src/store/schema.js';
import { messageRow, newId, openStore, storeDialects } from './dialects.js';

const now = () => new Date().toISOString();

describe.each(storeDialects())('search on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const userId = newId();
  const otherUser = newId();
  const serverId = newId();
  const [one, two, three] = [newId(), newId(), newId()];

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      for (const [id, name] of [
        [userId, 'Searcher'],
        [otherUser, 'Other'],
      ] as const)
        await store.users.insert(tx, {
          id,
          username: name,
          usernameKey: name.toLowerCase(),
          name,
          bot: 0,
          ownerId: null,
          passwordHash: 'x',
          tokenHash: null,
          avatar: null,
          createdAt: now(),
        });
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId: userId, createdAt: now() });
      for (const id of [one, two, three]) await store.channels.insert(tx, { id, serverId, name: 'c', createdAt: now() });
    });
  });
  afterAll(() => dispose?.());

  async function post(channelId: string, content: string, fields: Partial<MessageTable> = {}): Promise<MessageTable> {
    const m = messageRow({ channelId, serverId, authorId: userId, content, ...fields });
    await store.write((tx) => store.messages.insert(tx, m));
    return m;
  }

  const find = (s: Partial<Omit<MessageSearch, 'terms'>> & { terms?: string[] }) =>
    store.search.messages(store.db, {
      channelIds: [one, two, three],
      limit: 100,
      offset: 0,
      countLimit: 1000,
      ...s,
      terms: (s.terms ?? []).map((w) => (w.startsWith('=') ? { word: w.slice(1), prefix: false } : { word: w, prefix: true })),
    });
  const ids = async (s: Parameters<typeof find>[0]) => (await find(s)).rows.map((r) => r.id);

  it('matches every term as a word or a prefix, newest first, with the total', async () => {
    const a = await post(one, 'Ferrets are curious animals');
    const b = await post(two, 'a curious case of ferrets');
    await post(three, 'nothing to see');
    expect(await ids({ terms: ['ferrets'] })).toEqual([b.id, a.id]);
    expect(await ids({ terms: ['fer', 'cur'] })).toEqual([b.id, a.id]);
    expect(await ids({ terms: ['ferrets', 'animals'] })).toEqual([a.id]);
    expect(await ids({ terms: ['rrets'] })).toEqual([]);
    expect(await ids({ terms: ['ferretsx'] })).toEqual([]);
    // A word that is not a prefix matches only itself.
    expect(await ids({ terms: ['=ferrets'] })).toEqual([b.id, a.id]);
    expect(await ids({ terms: ['=ferret'] })).toEqual([]);
    expect(await ids({ terms: ['=a', 'cur'] })).toEqual([b.id]);
    const page = await find({ terms: ['curious'], limit: 1 });
    expect([page.total, page.rows.map((r) => r.id)]).toEqual([2, [b.id]]);
    const next = await find({ terms: ['curious'], limit: 1, offset: 1 });
    expect([next.total, next.rows.map((r) => r.id)]).toEqual([2, [a.id]]);
    // `total` stops counting at `countLimit`; the page is unaffected.
    const capped = await find({ terms: ['curious'], countLimit: 1 });
    expect([capped.total, capped.rows.map((r) => r.id)]).toEqual([1, [b.id, a.id]]);
  });

  it('rows are whole message rows, ids as exact strings', async () => {
    const m = await post(one, 'exactness check', { mentions: '[]', embeds: '[]' });
    const [row] = (await find({ terms: ['exactness'] })).rows;
    expect(row).toMatchObject({ ...m, id: m.id, channelId: one, serverId, authorId: userId });
    expect(typeof row!.id).toBe('string');
  });

  it('never looks outside the channels it is given', async () => {
    const a = await post(one, 'hedgehog one');
    const b = await post(two, 'hedgehog two');
    await post(three, 'hedgehog three');
    expect(await find({ terms: ['hedgehog'], channelIds: [one, two] })).toMatchObject({ total: 2 });
    expect(await ids({ terms: ['hedgehog'], channelIds: [two, one] })).toEqual([b.id, a.id]);
    expect(await find({ terms: ['hedgehog'], channelIds: [] })).toEqual({ total: 0, rows: [] });
    expect(await find({ channelIds: [] })).toEqual({ total: 0, rows: [] });
    expect((await find({ channelIds: [three], authorId: userId })).rows.every((r) => r.channelId === three)).toBe(true);
  });

  it('filters: author, mentions, has, before and after', async () => {
    const png = JSON.stringify([{ url: 'u', filename: 'a.png', size: 1, contentType: 'image/png' }]);
    const txt = JSON.stringify([{ url: 'u', filename: 'image.txt', size: 1, contentType: 'text/plain' }]);
    const m1 = await post(one, 'mole with picture', { attachments: png });
    const m2 = await post(one, 'mole with notes https://example.com', { attachments: txt });
    const m3 = await post(two, 'mole embedded', { embeds: JSON.stringify([{ title: 't' }]), authorId: otherUser });
    const m4 = await post(two, `mole for <@${otherUser}>`);
    await store.write((tx) => store.messages.insertMentions(tx, two, m4.id, [otherUser]));

    expect(await ids({ terms: ['mole'], has: ['file'] })).toEqual([m2.id, m1.id]);
    expect(await ids({ terms: ['mole'], has: ['image'] })).toEqual([m1.id]);
    expect(await ids({ terms: ['mole'], has: ['link'] })).toEqual([m2.id]);
    expect(await ids({ terms: ['mole'], has: ['embed'] })).toEqual([m3.id]);
    expect(await ids({ terms: ['mole'], has: ['file', 'link'] })).toEqual([m2.id]);
    expect(await ids({ terms: ['mole'], authorId: otherUser })).toEqual([m3.id]);
    expect(await ids({ authorId: otherUser })).toEqual([m3.id]);
    expect(await ids({ terms: ['mole'], mentions: otherUser })).toEqual([m4.id]);
    expect(await ids({ mentions: otherUser, channelIds: [one] })).toEqual([]);
    expect(await ids({ terms: ['mole'], before: m3.id })).toEqual([m2.id, m1.id]);
    expect(await ids({ terms: ['mole'], after: m2.id })).toEqual([m4.id, m3.id]);
    expect(await ids({ terms: ['mole'], after: m1.id, before: m4.id })).toEqual([m3.id, m2.id]);
    expect(await ids({ after: m3.id, channelIds: [two] })).toEqual([m4.id]);
  });

  it('follows edits and deletes, and channel deletion', async () => {
    const edited = await post(one, 'platypus first draft');
    const gone = await post(one, 'platypus going away');
    const ch = newId();
    await store.write((tx) => store.channels.insert(tx, { id: ch, serverId, name: 'tmp', createdAt: now() }));
    await post(ch, 'platypus in a doomed channel');
    expect((await find({ terms: ['platypus'], channelIds: [one, ch] })).total).toBe(3);

    expect(await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: now(), content: 'platypus final copy' }))).toBe(true);
    // An update that leaves the content alone keeps it indexed.
    await store.write((tx) => store.messages.setPinned(tx, edited.id, now()));
    expect(await ids({ terms: ['draft'] })).toEqual([]);
    expect(await ids({ terms: ['final', 'copy'] })).toEqual([edited.id]);
    expect(await store.write((tx) => store.messages.delete(tx, gone.id))).toBe(true);
    expect(await ids({ terms: ['going'] })).toEqual([]);
    await store.write((tx) => store.channels.delete(tx, ch));
    const left = await find({ terms: ['platypus'], channelIds: [one, ch] });
    expect([left.total, left.rows.map((r) => r.id)]).toEqual([1, [edited.id]]);
    if (dialect === 'sqlite') {
      // The index holds exactly what messages hold: FTS5's own check against its content table.
      await store.write((tx) => sql`insert into messages_fts (messages_fts, rank) values ('integrity-check', 1)`.execute(tx));
      const { rows } = await sql<{ n: number }>`select count(*) as n from messages_fts_docsize`.execute(store.db);
      const { rows: all } = await sql<{ n: number }>`select count(*) as n from messages`.execute(store.db);
      expect(rows[0]!.n).toBe(all[0]!.n);
    }
  });

  it('finds what was just written, including edits and deletes the index has not taken in yet', async () => {
    // No search between these writes: on SQLite they meet the queue (0010), not the index.
    const a = await post(two, 'wombat queued then edited');
    const b = await post(two, 'wombat queued then deleted');
    await store.write((tx) => store.messages.edit(tx, a.id, { editedAt: now(), content: 'wombat rewritten before indexing' }));
    expect(await store.write((tx) => store.messages.delete(tx, b.id))).toBe(true);
    expect(await ids({ terms: ['wombat'] })).toEqual([a.id]);
    expect(await ids({ terms: ['=edited'] })).toEqual([]);
    expect(await ids({ terms: ['rewritten'] })).toEqual([a.id]);
    // Now indexed: an edit and a delete take the old terms out of the index itself.
    await store.write((tx) => store.messages.edit(tx, a.id, { editedAt: now(), content: 'wombat third version' }));
    expect(await ids({ terms: ['rewritten'] })).toEqual([]);
    expect(await ids({ terms: ['third'] })).toEqual([a.id]);
    const c = await post(two, 'wombat indexed then deleted');
    expect(await ids({ terms: ['wombat'] })).toEqual([c.id, a.id]);
    expect(await store.write((tx) => store.messages.delete(tx, c.id))).toBe(true);
    expect(await ids({ terms: ['wombat'] })).toEqual([a.id]);
    if (dialect === 'sqlite') {
      await store.write((tx) => sql`insert into messages_fts (messages_fts, rank) values ('integrity-check', 1)`.execute(tx));
      const { rows } = await sql<{ n: number }>`select count(*) as n from messages_fts_pending`.execute(store.db);
      expect(rows[0]!.n).toBe(0);
    }
  });

  // Only SQLite queues (0010): PostgreSQL's index takes rows in as they are written.
  if (dialect === 'sqlite')
    it('takes new messages in by itself, without a search', async () => {
      const m = await post(three, 'echidna left for the indexer');
      const queued = async () => (await sql<{ n: number }>`select count(*) as n from messages_fts_pending`.execute(store.db)).rows[0]!.n;
      // The timer runs every 250 ms; no search is made while waiting.
      await vi.waitFor(async () => expect(await queued()).toBe(0), { timeout: 5000, interval: 50 });
      const { rows } = await sql<{ id: string }>`select rowid as id from messages_fts where messages_fts match 'echidna'`.execute(store.db);
      expect(rows.map((r) => String(r.id))).toEqual([m.id]);
    });

  it('the index reports its size', async () => {
    expect(await store.adapter.fullText.indexBytes(store.db)).toBeGreaterThan(0);
  });
});
