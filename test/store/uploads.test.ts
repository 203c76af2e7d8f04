/**
 * Upload records and the message_attachments links (migration 0003), on every database:
 * a referenced upload cannot be deleted, the sweep's check-and-delete is one statement,
 * and expired idempotency records are replaced. The migrations are in migrations.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import type { Store } from '../../src/store/index.js';
import type { MessageTable } from '../../src/store/schema.js';
import { messageRow, newId, openStore, storeDialects, userRow } from './dialects.js';

const now = () => new Date().toISOString();
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

describe.each(storeDialects())('uploads and attachments on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const userId = newId();
  const serverId = newId();
  const channelId = newId();

  const message = (attachments = '[]', channel = channelId): MessageTable =>
    messageRow({ channelId: channel, serverId, authorId: userId, attachments });

  async function newUpload(filename = 'f.txt', createdAt = now()): Promise<string> {
    const id = newId();
    await store.write((tx) =>
      store.uploads.insert(tx, { id, secret: 's', uploaderId: userId, filename, contentType: 'text/plain', size: 1, createdAt }),
    );
    return id;
  }

  /** A message that references `uploadIds`, written as createMessage writes it. */
  const attachWrite = (m: MessageTable, uploadIds: string[]) =>
    store.write(async (tx) => {
      await store.messages.insert(tx, m);
      await store.uploads.attach(tx, m.id, uploadIds);
    });

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(userId, 'Up'));
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId: userId, createdAt: now() });
      await store.channels.insert(tx, { id: channelId, serverId, name: 'general', createdAt: now() });
    });
  });
  afterAll(() => dispose?.());

  it('links a message to its uploads; a link to an unknown upload is refused', async () => {
    const up = await newUpload();
    const m = message();
    await attachWrite(m, [up, up]); // the same upload twice is one link
    expect(await store.uploads.ofMessage(store.db, m.id)).toEqual([up]);
    const bad = message();
    await expect(attachWrite(bad, [newId()])).rejects.toSatisfy((e) => e instanceof AppError && e.code === 'unknown_reference');
    expect(await store.messages.byId(store.db, channelId, bad.id)).toBeUndefined();
  });

  it('an upload a message references is not deleted; once the message is gone, it is', async () => {
    const up = await newUpload();
    const m = message();
    await attachWrite(m, [up]);
    expect(await store.write((tx) => store.uploads.deleteIfUnattached(tx, up))).toBeUndefined();
    // Not even a plain delete gets through: the foreign key refuses it.
    await expect(store.write((tx) => tx.deleteFrom('uploads').where('id', '=', up).execute())).rejects.toBeInstanceOf(AppError);
    expect(await store.uploads.byId(store.db, up)).toBeDefined();
    expect(await store.write((tx) => store.messages.delete(tx, m.id))).toBe(true);
    expect(await store.uploads.ofMessage(store.db, m.id)).toEqual([]);
    // The bytes to remove are named by the id (uploads since snowflakes have no file key).
    expect(await store.write((tx) => store.uploads.deleteIfUnattached(tx, up))).toBe(up);
    expect(await store.uploads.byId(store.db, up)).toBeUndefined();
  });

  it('edit and delete report whether a row was there', async () => {
    const m = message();
    await store.write((tx) => store.messages.insert(tx, m));
    expect(await store.write((tx) => store.messages.edit(tx, m.id, { content: 'y', editedAt: now() }))).toBe(true);
    expect(await store.write((tx) => store.messages.delete(tx, m.id))).toBe(true);
    expect(await store.write((tx) => store.messages.edit(tx, m.id, { content: 'z', editedAt: now() }))).toBe(false);
    expect(await store.write((tx) => store.messages.delete(tx, m.id))).toBe(false);
  });

  it('lists the uploads of a channel, and the unattached ones older than a cutoff', async () => {
    const ch = newId();
    await store.write((tx) => store.channels.insert(tx, { id: ch, serverId, name: 'other', createdAt: now() }));
    const [a, b, old, young] = [
      await newUpload(),
      await newUpload(),
      await newUpload('o', hoursAgo(30)),
      await newUpload('y', hoursAgo(1)),
    ];
    await attachWrite(message('[]', ch), [a, b]);
    await attachWrite(message('[]', ch), [a]);
    expect((await store.uploads.ofChannel(store.db, ch)).sort()).toEqual([a, b].sort());
    const unattached = await store.uploads.unattachedBefore(store.db, hoursAgo(24), 1000);
    expect(unattached).toContain(old);
    expect(unattached).not.toContain(young);
    expect(unattached).not.toContain(a);
    expect(await store.uploads.unattachedBefore(store.db, hoursAgo(24), 1)).toHaveLength(1);
  });

  it('sweep and attach queued together: whichever runs first decides, never a link to a deleted upload', async () => {
    // Attach queued first: the sweep's check sees the link and keeps the upload.
    const kept = await newUpload();
    const m1 = message();
    const [attached, swept] = await Promise.allSettled([
      attachWrite(m1, [kept]),
      store.write((tx) => store.uploads.deleteIfUnattached(tx, kept)),
    ]);
    expect(attached.status).toBe('fulfilled');
    expect(swept).toEqual({ status: 'fulfilled', value: undefined });
    expect(await store.uploads.byId(store.db, kept)).toBeDefined();

    // Sweep queued first: the upload goes and the attach fails as a whole.
    const gone = await newUpload();
    const m2 = message();
    const [swept2, attached2] = await Promise.allSettled([
      store.write((tx) => store.uploads.deleteIfUnattached(tx, gone)),
      attachWrite(m2, [gone]),
    ]);
    expect(swept2).toEqual({ status: 'fulfilled', value: gone });
    expect(attached2.status).toBe('rejected');
    expect(await store.messages.byId(store.db, channelId, m2.id)).toBeUndefined();
    expect(await store.uploads.ofMessage(store.db, m2.id)).toEqual([]);
  });

  it('an idempotency claim replaces an expired record and yields to a live one', async () => {
    const rec = { caller: 'bot:claim', key: 'k', fingerprint: 'old', status: 201, body: '{"n":1}', createdAt: hoursAgo(25) };
    await store.write((tx) => store.idempotency.insert(tx, rec));
    const cutoff = hoursAgo(24);
    const fresh = { ...rec, fingerprint: 'new', body: '{"n":2}', createdAt: now() };
    expect(await store.write((tx) => store.idempotency.claim(tx, fresh, cutoff))).toBe(true);
    expect(await store.idempotency.get(store.db, 'bot:claim', 'k')).toMatchObject({ fingerprint: 'new', body: '{"n":2}' });
    expect(await store.write((tx) => store.idempotency.claim(tx, { ...fresh, body: '{"n":3}' }, cutoff))).toBe(false);
    expect((await store.idempotency.get(store.db, 'bot:claim', 'k'))?.body).toBe('{"n":2}');
    expect(await store.write((tx) => store.idempotency.claim(tx, { ...rec, key: 'other', createdAt: now() }, cutoff))).toBe(true);
  });
});
