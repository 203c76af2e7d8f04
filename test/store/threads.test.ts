import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { ThreadRow } from '../../src/store/repos/threads.js';
import { messageRow, newId, openStore, storeDialects, userRow } from './dialects.js';

describe.each(storeDialects())('threads on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const ownerId = newId();
  const otherId = newId();
  const serverId = newId();
  const parentId = newId();
  const forumId = newId();
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

  const thread = (fields: Partial<ThreadRow> = {}): ThreadRow => ({
    id: newId(),
    serverId,
    parentId,
    type: 'public_thread',
    name: 't',
    createdAt: at(0),
    ownerId,
    archived: 0,
    locked: 0,
    invitable: 1,
    autoArchiveDuration: 60,
    archiveTimestamp: at(0),
    createTimestamp: at(0),
    archiveDueAt: at(60),
    messageCount: 0,
    memberCount: 0,
    appliedTags: '[]',
    ...fields,
  });

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(ownerId, 'owner'));
      await store.users.insert(tx, userRow(otherId, 'other'));
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId, createdAt: at(0) });
      await store.channels.insert(tx, { id: parentId, serverId, name: 'general', createdAt: at(0), position: 0 });
      await store.channels.insert(tx, { id: forumId, serverId, name: 'forum', createdAt: at(0), position: 1, type: 'forum' });
    });
  });
  afterAll(() => dispose?.());

  it('keeps a thread as a channel with a parent, out of the server channel list', async () => {
    const t = thread({ name: 'plans' });
    await store.write((tx) => store.threads.insert(tx, t));
    expect(await store.threads.byId(store.db, t.id)).toEqual(t);
    const listed = (await store.channels.ofServer(store.db, serverId)).map((c) => c.id);
    expect(listed).toEqual([parentId, forumId]);
    expect((await store.channels.idsOfServers(store.db, [serverId])).map((c) => c.id)).not.toContain(t.id);
    expect((await store.permissionInputs(store.db, serverId)).channels.map((c) => c.id)).not.toContain(t.id);
    expect(await store.channels.nextPosition(store.db, serverId)).toBe(2);
    // A message of the thread is a message of a channel like any other.
    await store.write((tx) => store.messages.insert(tx, messageRow({ channelId: t.id, serverId, authorId: ownerId })));
    expect((await store.messages.lastIds(store.db, [t.id])).has(t.id)).toBe(true);
  });

  it('counts members as they join and leave, once each', async () => {
    const t = thread();
    await store.write((tx) => store.threads.insert(tx, t));
    const join = (userId: string) =>
      store.write((tx) => store.threadMembers.add(tx, { threadId: t.id, userId, joinTimestamp: at(1), flags: 0 }));
    expect(await join(ownerId)).toBe(true);
    expect(await join(ownerId)).toBe(false);
    expect(await join(otherId)).toBe(true);
    expect((await store.threads.byId(store.db, t.id))?.memberCount).toBe(2);
    expect((await store.threadMembers.list(store.db, t.id, { limit: 10 })).map((m) => m.userId).sort()).toEqual([ownerId, otherId].sort());
    expect(await store.write((tx) => store.threadMembers.remove(tx, t.id, otherId))).toBe(true);
    expect(await store.write((tx) => store.threadMembers.remove(tx, t.id, otherId))).toBe(false);
    expect((await store.threads.byId(store.db, t.id))?.memberCount).toBe(1);
    expect(await store.threadMembers.get(store.db, t.id, otherId)).toBeUndefined();
    expect((await store.threadMembers.ofUser(store.db, ownerId, [t.id, parentId])).map((m) => m.threadId)).toEqual([t.id]);
    expect(await store.write((tx) => store.threadMembers.leaveServer(tx, serverId, ownerId))).toContain(t.id);
    expect((await store.threads.byId(store.db, t.id))?.memberCount).toBe(0);
  });

  it('counts messages and moves the auto-archive time; archives only what is still due', async () => {
    const t = thread({ archiveDueAt: at(60) });
    await store.write((tx) => store.threads.insert(tx, t));
    expect(await store.threads.due(store.db, at(59), 100)).not.toContain(t.id);
    expect(await store.threads.due(store.db, at(60), 100)).toContain(t.id);
    // A message came between the job's read and its write: it is no longer due.
    await store.write((tx) => store.threads.countMessage(tx, t.id, at(120)));
    expect(await store.write((tx) => store.threads.archiveIfDue(tx, t.id, at(61)))).toBe(false);
    const row = await store.threads.byId(store.db, t.id);
    expect(row?.messageCount).toBe(1);
    expect(row?.archived).toBe(0);
    expect(await store.write((tx) => store.threads.archiveIfDue(tx, t.id, at(121)))).toBe(true);
    expect(await store.write((tx) => store.threads.archiveIfDue(tx, t.id, at(122)))).toBe(false);
    const archived = await store.threads.byId(store.db, t.id);
    expect(archived?.archived).toBe(1);
    expect(archived?.archiveTimestamp).toBe(at(121));
    expect(await store.threads.due(store.db, at(500), 100)).not.toContain(t.id);
    await store.write((tx) => store.threads.uncountMessages(tx, t.id, 5));
    expect((await store.threads.byId(store.db, t.id))?.messageCount).toBe(0);
  });

  it('pages archived threads newest archive first, by kind, and by membership', async () => {
    const parent = newId();
    await store.write((tx) => store.channels.insert(tx, { id: parent, serverId, name: 'p', createdAt: at(0), position: 5 }));
    const made: ThreadRow[] = [];
    for (let i = 0; i < 5; i++) made.push(thread({ parentId: parent, archived: 1, archiveTimestamp: at(10 + i) }));
    const priv = thread({ parentId: parent, type: 'private_thread', archived: 1, archiveTimestamp: at(30) });
    const active = thread({ parentId: parent });
    await store.write(async (tx) => {
      for (const t of [...made, priv, active]) await store.threads.insert(tx, t);
      await store.threadMembers.add(tx, { threadId: made[1]!.id, userId: otherId, joinTimestamp: at(1), flags: 0 });
    });
    const first = await store.threads.archivedOfParent(store.db, parent, { type: 'public_thread', limit: 2 });
    expect(first.map((t) => t.id)).toEqual([made[4]!.id, made[3]!.id]);
    const next = await store.threads.archivedOfParent(store.db, parent, {
      type: 'public_thread',
      limit: 10,
      before: first[1]!.archiveTimestamp,
    });
    expect(next.map((t) => t.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
    expect((await store.threads.archivedOfParent(store.db, parent, { type: 'private_thread', limit: 10 })).map((t) => t.id)).toEqual([
      priv.id,
    ]);
    const mine = await store.threads.archivedOfParent(store.db, parent, { type: 'public_thread', limit: 10, memberId: otherId });
    expect(mine.map((t) => t.id)).toEqual([made[1]!.id]);
    expect((await store.threads.activeOfParent(store.db, parent)).map((t) => t.id)).toEqual([active.id]);
    expect((await store.threads.activeOfServer(store.db, serverId)).map((t) => t.id)).toContain(active.id);
    expect((await store.threads.activeOfServers(store.db, [serverId])).map((t) => t.id)).not.toContain(priv.id);
    expect((await store.threads.idsOfParent(store.db, parent)).length).toBe(7);
  });

  it('keeps a forum channel’s tags in order, replaced as a whole; they go with the channel', async () => {
    const tag = (name: string, position: number) => ({
      id: newId(),
      channelId: forumId,
      name,
      moderated: 0,
      emojiId: null,
      emojiName: null,
      position,
    });
    const a = tag('bug', 1);
    const b = tag('question', 0);
    await store.write((tx) => store.forumTags.replace(tx, forumId, [a, b]));
    expect((await store.forumTags.ofChannels(store.db, [forumId])).map((t) => t.name)).toEqual(['question', 'bug']);
    await store.write((tx) => store.forumTags.replace(tx, forumId, [a]));
    expect((await store.forumTags.ofChannels(store.db, [forumId])).map((t) => t.id)).toEqual([a.id]);
    const post = thread({ parentId: forumId, appliedTags: JSON.stringify([a.id]) });
    await store.write((tx) => store.threads.insert(tx, post));
    expect(JSON.parse((await store.threads.byId(store.db, post.id))!.appliedTags)).toEqual([a.id]);
    await store.write((tx) => store.channels.delete(tx, forumId).then(() => store.channels.delete(tx, post.id)));
    expect(await store.forumTags.ofChannels(store.db, [forumId])).toEqual([]);
    expect(await store.threads.byId(store.db, post.id)).toBeUndefined();
  });
});
