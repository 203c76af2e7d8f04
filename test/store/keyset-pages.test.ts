/**
 * The keyset pages Discord's lists read (docs/discord.md): a server's members by user id
 * (`members.pageById`) and a user's servers by id (`servers.pageOfMember`), on every
 * database. Ids of different lengths make text order and numeric order differ, so a
 * comparison done on text fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareIds } from '../../src/ids.js';
import type { Store } from '../../src/store/index.js';
import { newId, openStore, storeDialects, userRow } from './dialects.js';

const now = () => new Date().toISOString();

describe.each(storeDialects())('keyset pages on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const ownerId = newId();
  const serverId = newId();
  const other = newId();
  // Text order: 1000, 12, 3, 45, 7, 9; as numbers: 3, 7, 9, 12, 45, 1000 (then the owner's snowflake).
  const people = ['9', '45', '3', '1000', '7', '12'];
  const servers = ['80', '600', '5', ...Array.from({ length: 3 }, () => newId())];
  let heldRole = '';
  const byNumber = (ids: string[]) => [...ids].sort(compareIds);

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(ownerId, 'owner'));
      for (const id of people) await store.users.insert(tx, userRow(id, `p${id}`));
      await store.users.insert(tx, userRow(other, 'other'));
      for (const id of [serverId, ...servers]) await store.servers.insert(tx, { id, name: `s${id}`, ownerId, createdAt: now() });
      const roleId = newId();
      await store.roles.insert(tx, {
        id: roleId,
        serverId,
        name: 'r',
        color: 0,
        position: 1,
        permissions: '0',
        hoist: 0,
        mentionable: 0,
        managed: 0,
        botId: null,
      });
      heldRole = roleId;
      await store.members.insert(tx, { serverId, userId: ownerId, joinedAt: now() });
      for (const id of people)
        await store.members.insert(tx, { serverId, userId: id, roles: id === '45' ? [roleId] : [], joinedAt: now() });
      // `other` belongs to the listed servers, not to `serverId`; the owner to `serverId` only.
      for (const id of servers) await store.members.insert(tx, { serverId: id, userId: other, joinedAt: now() });
    });
  });
  afterAll(() => dispose?.());

  it("members.pageById walks a server's members in pages by id, ascending as numbers, each after the last", async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.members.pageById(store.db, serverId, { limit: 3, ...(after ? { after } : {}) });
      expect(page.length).toBeLessThanOrEqual(3);
      if (page.length === 0) break;
      seen.push(...page.map((m) => m.id));
      after = page.at(-1)!.id;
    }
    expect(seen).toEqual(byNumber([...people, ownerId]));
    expect(await store.members.pageById(store.db, serverId, { limit: 2, after: '7' })).toMatchObject([
      { id: '9', name: 'p9', roles: [] },
      { id: '12', name: 'p12', roles: [] },
    ]);
    const [fortyFive] = await store.members.pageById(store.db, serverId, { limit: 1, after: '12' });
    expect(fortyFive).toMatchObject({ id: '45', roles: [heldRole] });
    expect(await store.members.pageById(store.db, newId(), { limit: 10 })).toEqual([]);
  });

  it('servers.pageOfMember pages the servers someone belongs to between exclusive bounds, ascending as numbers', async () => {
    const all = byNumber(servers);
    const ids = async (page: { after?: string; before?: string; limit: number }) =>
      (await store.servers.pageOfMember(store.db, other, page)).map((s) => s.id);
    expect(await ids({ limit: 100 })).toEqual(all);
    expect(await ids({ limit: 2 })).toEqual(all.slice(0, 2));
    expect(await ids({ limit: 2, after: all[1]! })).toEqual(all.slice(2, 4));
    expect(await ids({ limit: 100, after: all[0]!, before: all[4]! })).toEqual(all.slice(1, 4));
    expect(await ids({ limit: 100, before: '600' })).toEqual(['5', '80']);
    expect(await ids({ limit: 100, after: all.at(-1)! })).toEqual([]);
  });
});
