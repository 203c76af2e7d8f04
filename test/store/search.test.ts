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
import { COUNT_ON_MESSAGES_UP_TO } from '../../src/store/dialects/sqlite.js';
import { expectSearchIndexMatchesMessages, messageRow, newId, openStore, storeDialects, userRow } from './dialects.js';

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
        await store.users.insert(tx, { ...userRow(id, name), createdAt: now() });
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
    if (dialect === 'sqlite') await expectSearchIndexMatchesMessages(store);
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
    if (dialect === 'sqlite') await expectSearchIndexMatchesMessages(store);
  });

  // Only SQLite queues (0010): PostgreSQL's index takes rows in as they are written.
  if (dialect === 'sqlite')
    it('takes new messages in by itself, without a search', async () => {
      const m = await post(three, 'echidna left for the indexer');
      const index = store.adapter.searchIndex!;
      const { queued } = index.position();
      // The timer runs every 250 ms; no search is made while waiting.
      await vi.waitFor(() => expect(index.position().indexed).toBeGreaterThanOrEqual(queued), { timeout: 5000, interval: 50 });
      const { rows } = await sql<{ id: string }>`select rowid as id from messages_fts where messages_fts match 'echidna'`.execute(store.db);
      expect(rows.map((r) => String(r.id))).toEqual([m.id]);
    });

  // Filters without words, and with them, are led by the index on SQLite (0014); the same
  // answers are checked on every database. Each case runs over one channel, a few, and more
  // than the index query names (then the channels are checked on the messages).
  describe('filters led by the index', () => {
    const png = JSON.stringify([{ url: 'u', filename: 'a.png', size: 1, contentType: 'image/png' }]);
    const txt = JSON.stringify([{ url: 'u', filename: 'image.txt', size: 1, contentType: 'text/plain' }]);
    const embed = JSON.stringify([{ title: 't' }]);
    const [alice, bob] = [newId(), newId()];
    const [a, b, hidden] = [newId(), newId(), newId()];
    // Channels that hold nothing: past the 32 the index query names.
    const many = (...real: string[]) => [...real, ...Array.from({ length: 40 }, () => newId())];
    let m: Record<string, MessageTable> = {};

    beforeAll(async () => {
      await store.write(async (tx) => {
        for (const id of [a, b, hidden]) await store.channels.insert(tx, { id, serverId, name: 'f', createdAt: now() });
      });
      const rows: Array<[string, string, string, Partial<MessageTable>]> = [
        ['alicePng', a, alice, { content: 'quokka picture', attachments: png }],
        ['aliceLink', a, alice, { content: 'quokka see HTTPS://example.com' }],
        ['bobTxt', a, bob, { content: 'quokka notes', attachments: txt }],
        ['bobEmbed', b, bob, { content: 'quokka embedded', embeds: embed }],
        ['alicePlain', b, alice, { content: 'quokka plain' }],
        ['bobPngLink', b, bob, { content: 'http://x.example quokka', attachments: png }],
        // In a channel the searches below are not given: never found, never counted.
        ['hiddenAlice', hidden, alice, { content: 'quokka secret https://x.example', attachments: png, embeds: embed }],
        ['hiddenBob', hidden, bob, { content: 'quokka secret', attachments: txt }],
      ];
      m = {};
      for (const [name, channelId, authorId, fields] of rows)
        m[name] = await post(channelId, fields.content ?? '', { authorId, ...fields });
    });

    const scope = (s: Parameters<typeof find>[0]) => [
      { ...s, channelIds: [a, b] },
      { ...s, channelIds: many(a, b) },
      { ...s, channelIds: [b, a], terms: ['quokka'] },
      { ...s, channelIds: many(b, a), terms: ['quok'] },
    ];
    async function expectFound(s: Parameters<typeof find>[0], names: string[]) {
      const want = names.map((n) => m[n]!.id);
      for (const each of scope(s)) {
        const found = await find(each);
        expect([found.total, found.rows.map((r) => r.id)], JSON.stringify(each)).toEqual([want.length, want]);
      }
    }

    it('author alone, has alone, and both, in the given channels only', async () => {
      await expectFound({ authorId: alice }, ['alicePlain', 'aliceLink', 'alicePng']);
      await expectFound({ authorId: bob }, ['bobPngLink', 'bobEmbed', 'bobTxt']);
      await expectFound({ has: ['file'] }, ['bobPngLink', 'bobTxt', 'alicePng']);
      await expectFound({ has: ['image'] }, ['bobPngLink', 'alicePng']);
      await expectFound({ has: ['link'] }, ['bobPngLink', 'aliceLink']);
      await expectFound({ has: ['embed'] }, ['bobEmbed']);
      await expectFound({ has: ['image', 'link'] }, ['bobPngLink']);
      await expectFound({ has: ['link', 'image', 'file'] }, ['bobPngLink']);
      await expectFound({ authorId: alice, has: ['image'] }, ['alicePng']);
      await expectFound({ authorId: bob, has: ['file'] }, ['bobPngLink', 'bobTxt']);
      await expectFound({ authorId: bob, has: ['embed', 'file'] }, []);
      await expectFound({ authorId: alice, has: ['link'], after: m.alicePng!.id, before: m.alicePlain!.id }, ['aliceLink']);
      // One channel, as `channelId` searches.
      expect(await ids({ channelIds: [a], authorId: alice })).toEqual([m.aliceLink!.id, m.alicePng!.id]);
      expect(await ids({ channelIds: [b], has: ['image'] })).toEqual([m.bobPngLink!.id]);
      expect(await ids({ channelIds: [hidden], authorId: alice })).toEqual([m.hiddenAlice!.id]);
      // The total is capped, the page and offset still exact.
      const capped = await find({ channelIds: [a, b], authorId: bob, countLimit: 2, limit: 1, offset: 1 });
      expect([capped.total, capped.rows.map((r) => r.id)]).toEqual([2, [m.bobEmbed!.id]]);
      // Nobody else: an author or channel with no messages finds nothing.
      expect(await find({ channelIds: [a, b], authorId: newId() })).toEqual({ total: 0, rows: [] });
      expect(await find({ channelIds: many(), has: ['image'] })).toEqual({ total: 0, rows: [] });
    });

    it('follows edits of the content, attachments and embeds, and deletes, queued or indexed', async () => {
      const [c, empty] = [newId(), newId()];
      await store.write(async (tx) => {
        for (const id of [c, empty]) await store.channels.insert(tx, { id, serverId, name: 'e', createdAt: now() });
      });
      const carol = newId();
      const edited = await post(c, 'numbat plain', { authorId: carol });
      const gone = await post(c, 'numbat going', { authorId: carol, attachments: png });
      // One channel, two, and more than the index query names.
      const look = (s: Parameters<typeof find>[0]) =>
        Promise.all(
          [[c], [c, empty], many(c)].map(async (channelIds) => {
            const found = await find({ ...s, channelIds });
            return [found.total, found.rows.map((r) => r.id)];
          }),
        );
      const both = (list: string[]) => [0, 1, 2].map(() => [list.length, list]);
      // Still queued: the edit is what gets indexed.
      await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: now(), attachments: png }));
      expect(await look({ has: ['image'] })).toEqual(both([gone.id, edited.id]));
      // Indexed now: each edit takes the old facets out and puts the new ones in.
      await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: now(), attachments: txt }));
      expect(await look({ has: ['image'] })).toEqual(both([gone.id]));
      expect(await look({ has: ['file'], authorId: carol })).toEqual(both([gone.id, edited.id]));
      await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: now(), attachments: '[]', embeds: embed }));
      expect(await look({ has: ['file'] })).toEqual(both([gone.id]));
      expect(await look({ has: ['embed'] })).toEqual(both([edited.id]));
      await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: now(), content: 'numbat https://example.org' }));
      expect(await look({ has: ['link'], authorId: carol })).toEqual(both([edited.id]));
      await store.write((tx) => store.messages.edit(tx, edited.id, { editedAt: now(), content: 'numbat no more links', embeds: '[]' }));
      expect(await look({ has: ['link'] })).toEqual(both([]));
      expect(await look({ has: ['embed'] })).toEqual(both([]));
      // A pin (no facet changes) leaves it as it was.
      await store.write((tx) => store.messages.setPinned(tx, edited.id, now()));
      expect(await look({ authorId: carol })).toEqual(both([gone.id, edited.id]));
      expect(await store.write((tx) => store.messages.delete(tx, gone.id))).toBe(true);
      expect(await look({ authorId: carol })).toEqual(both([edited.id]));
      expect(await look({ has: ['image'] })).toEqual(both([]));
      // Deleted while queued.
      const brief = await post(c, 'numbat brief', { authorId: carol, embeds: embed });
      expect(await store.write((tx) => store.messages.delete(tx, brief.id))).toBe(true);
      expect(await look({ authorId: carol })).toEqual(both([edited.id]));
      if (dialect === 'sqlite') await expectSearchIndexMatchesMessages(store);
    });

    it('counts many matches of a word over several channels exactly, in the given channels only', async () => {
      // Past the point where SQLite counts in the index, merging the channels' lists.
      const n = COUNT_ON_MESSAGES_UP_TO / 10;
      const [c1, c2, c3] = [newId(), newId(), newId()];
      await store.write(async (tx) => {
        for (const id of [c1, c2, c3]) await store.channels.insert(tx, { id, serverId, name: 'n', createdAt: now() });
      });
      const inChannel = { [c1]: 6 * n, [c2]: 5 * n, [c3]: 3 * n };
      await store.write(async (tx) => {
        for (const [channelId, count] of Object.entries(inChannel))
          for (let i = 0; i < count; i++)
            await store.messages.insert(tx, messageRow({ channelId, serverId, authorId: userId, content: `kiwi ${i}` }));
      });
      const total = async (s: Parameters<typeof find>[0]) => (await find({ countLimit: 20 * n, ...s })).total;
      expect(await total({ terms: ['kiwi'], channelIds: [c1, c2] })).toBe(11 * n);
      expect(await total({ terms: ['kiwi'], channelIds: [c2, c3] })).toBe(8 * n);
      expect(await total({ terms: ['kiw'], channelIds: [c1, c3, one] })).toBe(9 * n);
      expect(await total({ terms: ['kiwi'], channelIds: [c1, c2, c3], countLimit: 12 * n })).toBe(12 * n);
      expect(await total({ terms: ['kiwi'], channelIds: many(c2) })).toBe(5 * n);
      expect(await total({ terms: ['kiwi'], channelIds: [c3] })).toBe(3 * n);
      const page = await find({ terms: ['kiwi'], channelIds: [c2, one], limit: 3 });
      expect(page.rows.every((r) => r.channelId === c2)).toBe(true);
    });
  });

  it('the index reports its size', async () => {
    expect(await store.adapter.fullText.indexBytes(store.db)).toBeGreaterThan(0);
  });
});
