/**
 * Data migrations, on every database, from a database as the old code left it:
 * 0003 links the uploads of older messages; 0004 turns every ULID into a snowflake of the
 * same millisecond, keeping order, references, old links and credentials; 0006 keeps
 * existing sessions alive; 0008 indexes the messages already there for search.
 */
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { isId } from '../../src/ids.js';
import { bitsOfNames, compareIds, snowflakeTime } from '@parley/protocol';
import { Store } from '../../src/store/index.js';
import { migrateToLatest } from '../../src/store/migrations.js';
import { emptyDatabase, expectSearchIndexMatchesMessages, messageRow, storeDialects } from './dialects.js';
import { type LegacyWorld, seedLegacyDatabase, ulid } from './legacy.js';

const base = 'https://chat.example/parley';

describe.each(storeDialects())('migrations on %s', (dialect) => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup = [];
  });

  async function legacy(): Promise<{ db: Awaited<ReturnType<typeof emptyDatabase>>; w: LegacyWorld }> {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    const w = await seedLegacyDatabase(db.admin as Kysely<any>, { schema: db.schema, base });
    return { db, w };
  }

  async function open(db: Awaited<ReturnType<typeof emptyDatabase>>, clock?: () => number): Promise<Store> {
    const store = await Store.open({ ...db.options, ...(clock ? { idLease: { clock } } : {}) });
    cleanup.push(() => store.close());
    return store;
  }

  it('0003 links the uploads of older messages and makes their URLs canonical', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0002_credentials');
    const admin = db.admin as Kysely<any>;
    const t = Date.now() - 10_000;
    const [user, server, channel, u1, u2, gone] = [0, 1, 2, 3, 4, 5].map((i) => ulid(t + i));
    await admin
      .insertInto('users')
      .values({ id: user, username: 'U', username_key: 'u', name: 'U', bot: 0, password_hash: 'x', created_at: 'x', is_public: 0 })
      .execute();
    await admin.insertInto('servers').values({ id: server, name: 's', owner_id: user, created_at: 'x' }).execute();
    await admin.insertInto('channels').values({ id: channel, server_id: server, name: 'g', created_at: 'x' }).execute();
    await admin
      .insertInto('uploads')
      .values([
        { id: u1, uploader_id: user, filename: 'a b.txt', content_type: 'text/plain', size: 1, created_at: 'x' },
        { id: u2, uploader_id: user, filename: 'report.pdf', content_type: 'text/plain', size: 1, created_at: 'x' },
      ])
      .execute();
    const a = (url: string, filename: string) => ({ url, filename, size: 1, contentType: 'text/plain' });
    const unknown = `${base}/uploads/${gone}/gone.txt`;
    const lists = [
      [a(`${base}/uploads/${u1}/a%20b.txt/../../servers/x/invites`, 'invite.txt')],
      [a(`${base}/uploads/${u2}/report.pdf`, 'report.pdf'), a(`${base}/uploads/${u1}/a%20b.txt`, 'a b.txt')],
      [a(unknown, 'gone.txt')],
      [],
    ];
    const messages = lists.map((_, i) => ulid(t + 10 + i));
    await admin
      .insertInto('messages')
      .values(
        lists.map((list, i) => ({
          id: messages[i],
          channel_id: channel,
          server_id: server,
          author_id: user,
          author_name: 'U',
          author_bot: 0,
          content: 'x',
          attachments: JSON.stringify(list),
          embeds: '[]',
          created_at: 'x',
        })),
      )
      .execute();
    await migrateToLatest(admin, db.schema, '0003_uploads');

    const links: Array<Record<string, string>> = await admin
      .selectFrom('message_attachments')
      .select(['message_id', 'upload_id'])
      .execute();
    const linked = (m: string) => links.filter((l) => l.messageId === m).map((l) => l.uploadId!);
    expect(linked(messages[0]!)).toEqual([u1]);
    expect(linked(messages[1]!).sort()).toEqual([u1, u2].sort());
    expect(linked(messages[2]!)).toEqual([]);
    const after = async (m: string) =>
      JSON.parse((await admin.selectFrom('messages').select('attachments').where('id', '=', m).executeTakeFirstOrThrow()).attachments);
    expect(await after(messages[0]!)).toEqual([
      { url: `${base}/uploads/${u1}/a%20b.txt`, filename: 'a b.txt', size: 1, contentType: 'text/plain' },
    ]);
    expect((await after(messages[1]!)).map((x: { url: string }) => x.url)).toEqual([
      `${base}/uploads/${u2}/report.pdf`,
      `${base}/uploads/${u1}/a%20b.txt`,
    ]);
    expect((await after(messages[2]!))[0].url).toBe(unknown);
    expect(await after(messages[3]!)).toEqual([]);
  });

  it('0004 gives every row a snowflake of its ULID millisecond, with its references, order and links intact', async () => {
    const { db, w } = await legacy();
    const store = await open(db);
    const id = (old: string) => store.currentId(old).then((v) => v!);

    const owner = await id(w.owner);
    const bot = await id(w.bot);
    const server = await id(w.server);
    const channel = await id(w.channel);
    const upload = await id(w.upload);
    const avatarUpload = await id(w.avatarUpload);
    const hook = await id(w.hook);
    const messages = await Promise.all(w.messages.map(id));
    for (const x of [owner, bot, server, channel, upload, avatarUpload, hook, ...messages]) expect(isId(x), x).toBe(true);
    // The same instant: the creation time reads back from the new id.
    expect(snowflakeTime(owner)).toBe(Number(new Date((await store.users.byId(store.db, owner))!.createdAt)));
    // Every id is different, also across tables and within one millisecond.
    const all = [owner, bot, server, channel, upload, avatarUpload, hook, ...messages, await id(w.session), await id(w.goneAuthor)];
    expect(new Set(all).size).toBe(all.length);

    // References follow their rows.
    expect((await store.users.byId(store.db, bot))?.ownerId).toBe(owner);
    expect((await store.servers.byId(store.db, server))?.ownerId).toBe(owner);
    expect((await store.channels.byId(store.db, channel))?.serverId).toBe(server);
    expect((await store.members.forChannel(store.db, channel, bot))?.serverId).toBe(server);
    const page = await store.messages.page(store.db, channel, { limit: 50 });
    // Newest first, in the old order, the two of one millisecond included.
    expect(page.map((m) => m.id)).toEqual([await id(w.webhookMessage), ...[...messages].reverse()]);
    expect([...messages].sort(compareIds)).toEqual(messages);
    expect(page.find((m) => m.id === messages[2])?.authorId).toBe(await id(w.goneAuthor));
    const fromHook = page.find((m) => m.webhookId !== null)!;
    expect([fromHook.webhookId, fromHook.authorId]).toEqual([hook, hook]);
    expect(await store.uploads.ofMessage(store.db, messages[0]!)).toEqual([upload]);
    expect((await store.reactions.summaries(store.db, [messages[0]!], bot))[0]).toMatchObject({ emoji: '👍', count: 1, me: 1 });
    expect((await store.invites.byCode(store.db, 'oldinvite'))?.serverId).toBe(server);
    expect((await store.webhooks.byId(store.db, hook))?.channelId).toBe(channel);

    // Links inside text point at the new ids, with each upload's secret (0016); the bytes stay under their old name.
    const first = page.find((m) => m.id === messages[0])!;
    const secret = (await store.uploads.byId(store.db, upload))!.secret;
    const avatarSecret = (await store.uploads.byId(store.db, avatarUpload))!.secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(avatarSecret).not.toBe(secret);
    expect(JSON.parse(first.attachments)[0].url).toBe(`${base}/uploads/${upload}/${secret}/notes.txt`);
    expect(first.authorAvatar).toBe(`${base}/uploads/${avatarUpload}/${avatarSecret}/me.png`);
    expect((await store.users.byId(store.db, owner))?.avatar).toBe(`${base}/uploads/${avatarUpload}/${avatarSecret}/me.png`);
    expect((await store.uploads.byId(store.db, upload))?.fileKey).toBe(w.upload);
    // A retried request replays the answer it got, in the new ids.
    const record = await store.idempotency.get(store.db, `bot:${bot}`, 'retry-1');
    expect(JSON.parse(record!.body)).toEqual({ id: messages[1], channelId: channel, content: 'message 1' });

    // Not a ULID we had, or not a ULID at all: nothing.
    expect(await store.currentId(ulid(Date.now()))).toBeUndefined();
    expect(await store.currentId(owner)).toBe(owner);
  });

  it('0004 orders ids as numbers, whatever their length', async () => {
    const { db } = await legacy();
    const store = await open(db);
    const channel = (await store.db.selectFrom('channels').select('id').executeTakeFirstOrThrow()).id;
    const server = (await store.db.selectFrom('servers').select('id').executeTakeFirstOrThrow()).id;
    const author = (await store.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
    // As strings, "9…" sorts after "10…"; as numbers it is smaller.
    const short = '999999999999999999';
    const long = '1000000000000000000';
    await store.write(async (tx) => {
      for (const id of [long, short])
        await store.messages.insert(tx, messageRow({ id, channelId: channel, serverId: server, authorId: author }));
    });
    const oldest = await store.messages.page(store.db, channel, { limit: 2, after: '0' });
    expect(oldest.map((m) => m.id)).toEqual([long, short]);
    expect((await store.messages.page(store.db, channel, { limit: 5, before: long })).map((m) => m.id)).toEqual([short]);
  });

  it('the first ids after 0004 come after every migrated one, even with the clock behind', async () => {
    const { db, w } = await legacy();
    // The clock says an hour before the newest migrated row.
    const store = await open(db, () => w.newestMs - 3600_000);
    const next = store.ids.next();
    expect(compareIds(next, (await store.currentId(w.webhookMessage))!)).toBeGreaterThan(0);
    expect(snowflakeTime(next)).toBeGreaterThan(w.newestMs);
  });

  it('0006 adds the account columns and counts every existing session as used at the upgrade', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0004_snowflakes');
    const admin = db.admin as Kysely<any>;
    const longAgo = new Date(Date.now() - 90 * 86_400_000).toISOString();
    await admin
      .insertInto('users')
      .values({
        id: '100000000000000001',
        username: 'Old',
        username_key: 'old',
        name: 'Old',
        bot: 0,
        password_hash: 'x',
        created_at: longAgo,
      })
      .execute();
    await admin
      .insertInto('sessions')
      .values({ id: '100000000000000002', user_id: '100000000000000001', token_hash: 'h', created_at: longAgo })
      .execute();
    const before = Date.now();
    const store = await open(db);
    const session = await store.sessions.byId(store.db, '100000000000000002');
    // Not 90 days unused (which would expire it at once): used now, as far as expiry goes.
    expect(Date.parse(session!.lastUsedAt!)).toBeGreaterThanOrEqual(before - 1000);
    expect(session!.userAgent).toBeNull();
    const user = await store.users.byId(store.db, '100000000000000001');
    expect(user).toMatchObject({ displayName: null, deletedAt: null, avatarUploadId: null, interactionsUrl: null });
  });

  it('0008 indexes the messages already stored, and keeps indexing new ones', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0007_conversations');
    const admin = db.admin as Kysely<any>;
    const [user, server, channel] = ['100000000000000001', '100000000000000002', '100000000000000003'];
    await admin
      .insertInto('users')
      .values({ id: user, username: 'Old', username_key: 'old', name: 'Old', bot: 0, password_hash: 'x', created_at: 'x' })
      .execute();
    await admin.insertInto('servers').values({ id: server, name: 's', owner_id: user, created_at: 'x' }).execute();
    await admin.insertInto('channels').values({ id: channel, server_id: server, name: 'g', created_at: 'x' }).execute();
    const old = ['an archived armadillo', 'another archived note', 'unrelated'].map((content, i) =>
      messageRow({ id: String(200000000000000000n + BigInt(i)), channelId: channel, serverId: server, authorId: user, content }),
    );
    // As 0007 stored them: without the columns later migrations add.
    for (const { components: _c, interaction: _i, type: _t, ...m } of old) await admin.insertInto('messages').values(m).execute();

    const store = await open(db);
    const find = (terms: string[]) =>
      store.search
        .messages(store.db, {
          terms: terms.map((word) => ({ word, prefix: true })),
          channelIds: [channel],
          limit: 10,
          offset: 0,
          countLimit: 100,
        })
        .then((r) => r.rows.map((m) => m.id));
    expect(await find(['archived'])).toEqual([old[1]!.id, old[0]!.id]);
    expect(await find(['armadillo'])).toEqual([old[0]!.id]);
    const fresh = messageRow({ channelId: channel, serverId: server, authorId: user, content: 'archived again' });
    await store.write((tx) => store.messages.insert(tx, fresh));
    expect(await find(['arch'])).toEqual([fresh.id, old[1]!.id, old[0]!.id]);
  });

  it('0014 indexes the channel, author and has of the messages already stored, indexed or still queued', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0012_interactions');
    const admin = db.admin as Kysely<any>;
    const [user, other, server, channel, hidden] = [
      '100000000000000011',
      '100000000000000012',
      '100000000000000013',
      '100000000000000014',
      '100000000000000015',
    ];
    await admin
      .insertInto('users')
      .values({ id: user, username: 'Old', username_key: 'old', name: 'Old', bot: 0, password_hash: 'x', created_at: 'x' })
      .execute();
    await admin.insertInto('servers').values({ id: server, name: 's', owner_id: user, created_at: 'x' }).execute();
    for (const id of [channel, hidden])
      await admin.insertInto('channels').values({ id, server_id: server, name: 'g', created_at: 'x' }).execute();
    const png = JSON.stringify([{ url: 'u', filename: 'a.png', size: 1, contentType: 'image/png' }]);
    const old = [
      { channelId: channel, authorId: user, content: 'old picture', attachments: png },
      { channelId: channel, authorId: other, content: 'old link https://example.com' },
      { channelId: hidden, authorId: user, content: 'old hidden picture', attachments: png },
      { channelId: channel, authorId: user, content: 'old queued picture', attachments: png },
    ].map((m, i) => messageRow({ id: String(300000000000000000n + BigInt(i)), serverId: server, ...m }));
    // As 0013 stored them: without the type 0024 adds.
    for (const { type: _t, ...m } of old) await admin.insertInto('messages').values(m).execute();
    if (dialect === 'sqlite') {
      // As 0010's catch-up left them: the first three indexed, the last still queued.
      await sql`insert into messages_fts (rowid, content) select id, content from messages where id < ${old[3]!.id}`.execute(admin);
      await sql`delete from messages_fts_pending where id < ${old[3]!.id}`.execute(admin);
    }

    const store = await open(db);
    const find = (s: { authorId?: string; has?: Array<'image' | 'link'>; words?: string[] }) =>
      store.search
        .messages(store.db, {
          terms: (s.words ?? []).map((word) => ({ word, prefix: true })),
          channelIds: [channel],
          ...(s.authorId ? { authorId: s.authorId } : {}),
          has: s.has ?? [],
          limit: 10,
          offset: 0,
          countLimit: 100,
        })
        .then((r) => [r.total, r.rows.map((m) => m.id)]);
    expect(await find({ authorId: user })).toEqual([2, [old[3]!.id, old[0]!.id]]);
    expect(await find({ has: ['image'] })).toEqual([2, [old[3]!.id, old[0]!.id]]);
    expect(await find({ has: ['link'], words: ['old'] })).toEqual([1, [old[1]!.id]]);
    expect(await find({ words: ['pic'] })).toEqual([2, [old[3]!.id, old[0]!.id]]);
    // New messages, edits and deletes keep it so.
    const fresh = messageRow({ channelId: channel, serverId: server, authorId: other, content: 'new', attachments: png });
    await store.write((tx) => store.messages.insert(tx, fresh));
    await store.write((tx) => store.messages.edit(tx, old[0]!.id, { editedAt: 'x', attachments: '[]' }));
    await store.write((tx) => store.messages.delete(tx, old[3]!.id));
    expect(await find({ has: ['image'] })).toEqual([1, [fresh.id]]);
    expect(await find({ authorId: user })).toEqual([1, [old[0]!.id]]);
    if (dialect === 'sqlite') await expectSearchIndexMatchesMessages(store);
  });

  it('0021 moves every role assignment from members.roles to member_roles, and deletions cascade', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0019_member_nick');
    const admin = db.admin as Kysely<any>;
    // Two servers; role ids whose text order is not their numeric order (9 < 10).
    const [owner, a, b, c] = ['101', '102', '103', '104'];
    const [s1, s2] = ['201', '202'];
    const [r9, r10, r11, r2] = ['9', '10', '11', '301'];
    for (const id of [owner, a, b, c])
      await admin
        .insertInto('users')
        .values({ id, username: `u${id}`, username_key: `u${id}`, name: 'U', bot: 0, created_at: 'x' })
        .execute();
    for (const id of [s1, s2]) await admin.insertInto('servers').values({ id, name: 's', owner_id: owner, created_at: 'x' }).execute();
    const role = (id: string, server: string) => ({ id, server_id: server, name: `r${id}`, position: 1, permissions: '0' });
    await admin
      .insertInto('roles')
      .values([role(s1, s1), role(r9, s1), role(r10, s1), role(r11, s1), role(s2, s2), role(r2, s2)])
      .execute();
    const member = (server: string, user: string, roles: string) => ({
      server_id: server,
      user_id: user,
      legacy_permissions: -1,
      joined_at: 'x',
      roles,
    });
    await admin
      .insertInto('members')
      .values([
        member(s1, owner, ''),
        // Several, not in order; one of them twice.
        member(s1, a, `${r10},${r9},${r10}`),
        member(s1, b, r11),
        // Another server's role, @everyone and an id of no role are no assignment of this server's.
        member(s1, c, `${r9},${r2},${s1},404`),
        member(s2, a, r2),
        member(s2, b, ''),
      ])
      .execute();

    const store = await open(db);
    const rows = await store.db.selectFrom('memberRoles').select(['serverId', 'userId', 'roleId']).execute();
    const held = rows.map((r) => `${r.serverId}/${r.userId}/${r.roleId}`).sort();
    expect(held).toEqual([`${s1}/${a}/${r10}`, `${s1}/${a}/${r9}`, `${s1}/${b}/${r11}`, `${s1}/${c}/${r9}`, `${s2}/${a}/${r2}`].sort());
    await expect(sql`select roles from members`.execute(store.db)).rejects.toThrow();
    // As the domain reads them: ascending as numbers, in the one-query channel lookup too.
    expect((await store.members.get(store.db, s1, a))?.roles).toEqual([r9, r10]);
    expect((await store.members.get(store.db, s1, owner))?.roles).toEqual([]);
    expect((await store.servers.ofMember(store.db, a)).map((s) => [s.id, s.roles])).toEqual([
      [s1, [r9, r10]],
      [s2, [r2]],
    ]);
    expect((await store.members.withRole(store.db, r9)).map((h) => [h.userId, h.roles])).toEqual([
      [a, [r9, r10]],
      [c, [r9]],
    ]);

    // A role's deletion takes it from its holders; a member's removal and a server's deletion take theirs.
    await store.write((tx) => store.roles.delete(tx, s1, r9));
    expect((await store.members.get(store.db, s1, a))?.roles).toEqual([r10]);
    expect((await store.members.get(store.db, s1, c))?.roles).toEqual([]);
    await store.write((tx) => store.members.delete(tx, s1, b));
    await store.write((tx) => store.servers.delete(tx, s2));
    const left = await store.db.selectFrom('memberRoles').select(['serverId', 'userId', 'roleId']).execute();
    expect(left.map((r) => `${r.serverId}/${r.userId}/${r.roleId}`)).toEqual([`${s1}/${a}/${r10}`]);
  });

  it('0022 gives each bot added before roles its managed role with its old bits, and ids stay unique', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0021_member_roles');
    const admin = db.admin as Kysely<any>;
    const [owner, person, bot, quiet] = ['101', '102', '103', '104'];
    const [s1, s2] = ['201', '202'];
    const user = (id: string, name: string, isBot: number) => ({
      id,
      username: null,
      username_key: null,
      name,
      bot: isBot,
      created_at: 'x',
    });
    await admin
      .insertInto('users')
      .values([
        { ...user(owner, 'Owner', 0), username: 'owner', username_key: 'owner' },
        { ...user(person, 'Person', 0), username: 'person', username_key: 'person' },
        user(bot, 'Old bot', 1),
        user(quiet, 'Quiet bot', 1),
      ])
      .execute();
    for (const id of [s1, s2]) await admin.insertInto('servers').values({ id, name: 's', owner_id: owner, created_at: 'x' }).execute();
    const role = (id: string, server: string, position: number) => ({ id, server_id: server, name: `r${id}`, position, permissions: '0' });
    await admin
      .insertInto('roles')
      .values([role(s1, s1, 0), role('301', s1, 3), role(s2, s2, 0)])
      .execute();
    const member = (server: string, userId: string, bits: number) => ({
      server_id: server,
      user_id: userId,
      legacy_permissions: bits,
      joined_at: 'x',
    });
    await admin
      .insertInto('members')
      .values([
        member(s1, owner, -1),
        // READ_MESSAGES | SEND_MESSAGES, as schema 0003 stored them; a person's bits are only marked done.
        member(s1, bot, 1 | 2),
        member(s1, person, 15),
        member(s2, bot, 4 | 8),
        member(s2, quiet, 0),
      ])
      .execute();

    const store = await open(db);
    const managed = (await Promise.all([s1, s2].map((s) => store.roles.ofServer(store.db, s)))).flat().filter((r) => r.managed === 1);
    expect(managed.map((r) => [r.serverId, r.botId, r.name, r.position, r.permissions]).sort()).toEqual(
      [
        [s1, bot, 'Old bot', 4, bitsOfNames(['READ_MESSAGES', 'SEND_MESSAGES']).toString()],
        [s2, bot, 'Old bot', 1, bitsOfNames(['ADD_REACTIONS', 'ATTACH_FILES']).toString()],
        // Each new one on top of the last.
        [s2, quiet, 'Quiet bot', 2, '0'],
      ].sort(),
    );
    for (const r of managed) {
      expect(isId(r.id)).toBe(true);
      expect((await store.members.get(store.db, r.serverId, r.botId!))?.roles).toEqual([r.id]);
    }
    expect((await store.members.get(store.db, s1, person))?.roles).toEqual([]);
    const left = await store.db.selectFrom('members').select('legacyPermissions').where('legacyPermissions', '>=', 0).execute();
    expect(left).toEqual([]);
    // Each server's permission version moved on once per role made.
    expect(Number((await store.servers.byId(store.db, s1))?.permVersion)).toBe(1);
    expect(Number((await store.servers.byId(store.db, s2))?.permVersion)).toBe(2);
    // The migration's worker number was given back past its ids: the store's come after them.
    const next = store.ids.next();
    for (const r of managed) expect(compareIds(next, r.id)).toBeGreaterThan(0);
  });

  it('0027 lets @everyone that may send start and post in threads, and a lock or a member leaving moves the access epoch', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0025_threads');
    const admin = db.admin as Kysely<any>;
    const owner = '101';
    await admin.insertInto('users').values({ id: owner, username: 'o', username_key: 'o', name: 'O', bot: 0, created_at: 'x' }).execute();
    const [sends, reads, already] = ['201', '202', '203'];
    const threadBits = (1n << 35n) | (1n << 36n) | (1n << 38n);
    const start: Record<string, bigint> = { [sends]: 3072n, [reads]: 1024n, [already]: 3072n | threadBits };
    for (const [id, bits] of Object.entries(start)) {
      await admin.insertInto('servers').values({ id, name: 's', owner_id: owner, created_at: 'x' }).execute();
      await admin.insertInto('roles').values({ id, server_id: id, name: '@everyone', position: 0, permissions: bits.toString() }).execute();
    }
    const store = await open(db);
    const everyone = async (id: string) => BigInt((await store.roles.byId(store.db, id, id))!.permissions);
    expect(await everyone(sends)).toBe(3072n | threadBits);
    expect(await everyone(reads)).toBe(1024n);
    expect(await everyone(already)).toBe(3072n | threadBits);
    expect(Number((await store.servers.byId(store.db, sends))?.permVersion)).toBe(1);
    expect(Number((await store.servers.byId(store.db, reads))?.permVersion)).toBe(0);

    const thread = '301';
    const parent = '302';
    await store.write(async (tx) => {
      await store.channels.insert(tx, { id: parent, serverId: sends, name: 'p', createdAt: 'x', position: 0 });
      await store.threads.insert(tx, {
        id: thread,
        serverId: sends,
        parentId: parent,
        type: 'private_thread',
        name: 't',
        createdAt: 'x',
        ownerId: owner,
        archived: 0,
        locked: 0,
        invitable: 1,
        autoArchiveDuration: 60,
        archiveTimestamp: 'x',
        createTimestamp: 'x',
        archiveDueAt: 'y',
        messageCount: 0,
        memberCount: 0,
        appliedTags: '[]',
      });
      await store.threadMembers.add(tx, { threadId: thread, userId: owner, joinTimestamp: 'x', flags: 0 });
    });
    let epoch = await store.accessEpoch();
    await store.write((tx) => store.threads.countMessage(tx, thread, 'z'));
    expect(await store.accessEpoch()).toBe(epoch);
    await store.write((tx) => store.threads.update(tx, thread, { locked: 1 }));
    expect(await store.accessEpoch()).toBeGreaterThan(epoch);
    epoch = await store.accessEpoch();
    await store.write((tx) => store.threads.update(tx, thread, { archived: 1 }));
    expect(await store.accessEpoch()).toBeGreaterThan(epoch);
    epoch = await store.accessEpoch();
    await store.write((tx) => store.threadMembers.remove(tx, thread, owner));
    expect(await store.accessEpoch()).toBeGreaterThan(epoch);
  });

  it("0028 gives threads their parent for the per-channel lists' index, and channels a forum's defaults", async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    await migrateToLatest(db.admin, db.schema, '0027_thread_permissions');
    const admin = db.admin as Kysely<any>;
    await admin.insertInto('users').values({ id: '101', username: 'o', username_key: 'o', name: 'O', bot: 0, created_at: 'x' }).execute();
    await admin.insertInto('servers').values({ id: '201', name: 's', owner_id: '101', created_at: 'x' }).execute();
    await admin.insertInto('channels').values({ id: '301', server_id: '201', name: 'general', created_at: 'x', position: 0 }).execute();
    for (const [id, archived] of [
      ['401', 1],
      ['402', 0],
    ] as const) {
      await admin
        .insertInto('channels')
        .values({ id, server_id: '201', parent_id: '301', type: 'public_thread', name: `t${id}`, created_at: 'x', position: 0 })
        .execute();
      await admin
        .insertInto('threads')
        .values({
          channel_id: id,
          owner_id: '101',
          archived,
          auto_archive_duration: 60,
          archive_timestamp: `2026-01-0${id.at(-1)}T00:00:00.000Z`,
          create_timestamp: 'x',
          archive_due_at: 'y',
        })
        .execute();
    }
    const store = await open(db);
    const archived = await store.threads.archivedOfParent(store.db, '301', { type: 'public_thread', limit: 10 });
    expect(archived.map((t) => t.id)).toEqual(['401']);
    expect((await store.threads.activeOfParent(store.db, '301')).map((t) => t.id)).toEqual(['402']);
    expect(await store.channels.byId(store.db, '301')).toMatchObject({ defaultAutoArchiveDuration: null, defaultForumLayout: null });
  });

  it('0004 on an empty database leaves ids to the generator', async () => {
    const db = await emptyDatabase(dialect);
    cleanup.push(() => db.dispose());
    const store = await open(db);
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from legacy_ids`.execute(store.db);
    expect(Number(rows[0]!.n)).toBe(0);
    const a = store.ids.next();
    expect(isId(a)).toBe(true);
    expect(Math.abs(snowflakeTime(a) - Date.now())).toBeLessThan(5_000);
    // And the generator's ids keep increasing.
    expect(compareIds(store.ids.next(), a)).toBeGreaterThan(0);
  });
});
