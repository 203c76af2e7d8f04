import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store, Tx } from '../../src/store/index.js';
import type { RoleTable } from '../../src/store/schema.js';
import { newId, openStore, storeDialects, userRow } from './dialects.js';

/** Counts the statements a transaction runs through it (Kysely compiles each query through its plugins once). */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

const ROLES = 120;

describe.each(storeDialects())('role positions on %s', (dialect) => {
  let store: Store;
  let dispose: () => Promise<void>;
  const ownerId = newId();
  const serverId = newId();
  const ids: string[] = [];

  const role = (id: string, position: number): RoleTable => ({
    id,
    serverId,
    name: `r${position}`,
    color: 0,
    position,
    permissions: '0',
    hoist: 0,
    mentionable: 0,
    managed: 0,
    botId: null,
  });
  const positions = async () =>
    new Map((await store.roles.ofServer(store.db, serverId)).filter((r) => r.id !== serverId).map((r) => [r.id, Number(r.position)]));

  beforeAll(async () => {
    ({ store, dispose } = await openStore(dialect));
    for (let i = 0; i < ROLES; i++) ids.push(newId());
    await store.write(async (tx) => {
      await store.users.insert(tx, userRow(ownerId, 'owner'));
      await store.servers.insert(tx, { id: serverId, name: 's', ownerId, createdAt: new Date().toISOString() });
      await store.roles.insert(tx, { ...role(serverId, 0), name: '@everyone' });
      for (let i = 0; i < ROLES; i++) await store.roles.insert(tx, role(ids[i]!, i + 1));
    });
  });
  afterAll(() => dispose?.());

  it(`reorders ${ROLES} roles in one statement, touching none it does not name`, async () => {
    const counter = new StatementCounter();
    // Reverse the order of all but the first role: the first keeps position 1.
    const wanted = ids.slice(1).map((id, i) => ({ id, position: ROLES - i }));
    await store.write((tx) => store.roles.setPositions(tx.withPlugin(counter) as Tx, serverId, wanted));
    expect(counter.count).toBe(1);
    const after = await positions();
    expect(after.get(ids[0]!)).toBe(1);
    for (const w of wanted) expect(after.get(w.id)).toBe(w.position);
    expect(Number((await store.roles.byId(store.db, serverId, serverId))?.position)).toBe(0);
  });

  it('makes room for a new role at position 1 in one statement, @everyone unmoved', async () => {
    const before = await positions();
    const counter = new StatementCounter();
    await store.write((tx) => store.roles.makeRoomAt(tx.withPlugin(counter) as Tx, serverId, 1));
    expect(counter.count).toBe(1);
    const after = await positions();
    for (const [id, p] of before) expect(after.get(id)).toBe(p + 1);
    expect(Number((await store.roles.byId(store.db, serverId, serverId))?.position)).toBe(0);
    expect(await store.roles.countOf(store.db, serverId)).toBe(ROLES);
  });
});
