import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { messageRow, newId, openStore, storeDialects, userRow } from './dialects.js';

const now = () => new Date().toISOString();

/**
 * The access epoch (0013) moves with every change that can take access away, in the
 * change's own transaction, and stays put for what the hot path writes (messages,
 * a session's hourly touch) and for new rows that can only grant.
 */
describe.each(storeDialects())('access epoch on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const userId = newId();
  const serverId = newId();
  const channelId = newId();
  const sessionId = newId();
  const [roleA, roleB] = [newId(), newId()];
  const epoch = async () => Number(await store.accessEpoch());

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(userId, 'ae'));
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId: userId, createdAt: now() });
      await store.channels.insert(tx, { id: channelId, serverId, name: 'general', createdAt: now() });
      await store.members.insert(tx, { serverId, userId, joinedAt: now() });
      for (const id of [roleA, roleB])
        await store.roles.insert(tx, {
          id,
          serverId,
          name: id,
          color: 0,
          position: 1,
          permissions: '0',
          hoist: 0,
          mentionable: 0,
          managed: 0,
          botId: null,
        });
      await store.sessions.insert(tx, { id: sessionId, userId, tokenHash: 'h', createdAt: now() });
    });
  });
  afterAll(() => dispose?.());

  it('stays put for messages, a session touch and new members', async () => {
    const before = await epoch();
    await store.write((tx) => store.messages.insert(tx, messageRow({ channelId, serverId, authorId: userId, content: 'hi' })));
    await store.write((tx) => store.sessions.touch(tx, sessionId, now()));
    const other = newId();
    await store.write((tx) =>
      store.users.insert(tx, {
        id: other,
        username: null,
        usernameKey: null,
        name: 'b',
        bot: 1,
        ownerId: userId,
        passwordHash: null,
        tokenHash: 't',
        avatar: null,
        createdAt: now(),
      }),
    );
    await store.write((tx) => store.members.insert(tx, { serverId, userId: other, joinedAt: now() }));
    expect(await epoch()).toBe(before);
  });

  it('moves with a member’s roles, a channel, a server, a user, a server and a session’s end', async () => {
    let last = await epoch();
    const moved = async () => {
      const e = await epoch();
      expect(e).toBeGreaterThan(last);
      last = e;
    };
    // A role given can take access away (its overwrites may deny): given, and taken, both count.
    await store.write((tx) => store.members.setRoles(tx, serverId, userId, [roleA]));
    await moved();
    await store.write((tx) => store.members.addRoles(tx, serverId, userId, [roleB]));
    await moved();
    await store.write((tx) => store.members.removeRole(tx, serverId, userId, roleB));
    await moved();
    await store.write((tx) => store.channels.update(tx, channelId, { name: 'renamed' }));
    await moved();
    await store.write((tx) => store.users.updateProfile(tx, userId, { name: 'y' }));
    await moved();
    await store.write((tx) => store.servers.update(tx, serverId, { name: 'renamed' }));
    await moved();
    await store.write((tx) => store.sessions.delete(tx, sessionId));
    await moved();
  });

  it('is not moved by a transaction that rolls back', async () => {
    const before = await epoch();
    await expect(
      store.write(async (tx) => {
        await store.members.setRoles(tx, serverId, userId, []);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await epoch()).toBe(before);
  });

  it.runIf(dialect === 'postgres')(
    'PostgreSQL: one read serves a turn’s callers, and a read already sent serves no later one',
    async () => {
      // Every epoch read any pg client sends; the first one's answer is held until `release`.
      let reads = 0;
      let held!: () => void;
      const answered = new Promise<void>((r) => {
        held = r;
      });
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
        if (!/from access_epoch/.test(text)) return result;
        if (++reads > 1) return result;
        return result.then(async (r) => {
          held();
          await gate;
          return r;
        });
      } as typeof query;
      try {
        const first = Array.from({ length: 20 }, () => store.accessEpoch());
        // The read has been answered (its snapshot taken); its callers do not know yet.
        await answered;
        await store.write((tx) => store.channels.rename(tx, channelId, `renamed-${newId()}`));
        const later = store.accessEpoch();
        release();
        const seen = await Promise.all(first);
        expect(new Set(seen).size).toBe(1);
        // Twenty callers in one turn, one read; the caller after the change, a read of its own.
        expect(await later).toBeGreaterThan(seen[0]!);
        expect(reads).toBe(2);
      } finally {
        pg.Client.prototype.query = query;
        release();
      }
    },
  );
});
