/**
 * What a role create and a role move cost in statements (issue 35, item 6; docs/security.md,
 * "Bounded objects"): the same however many roles the server has. Each write transaction
 * of the running service is counted through a Kysely plugin on its `tx`, over real HTTP.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/store/index.js';
import { call, createServer, registerUser, type TestUser } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';

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

let srv: TestServer;
let owner: TestUser;
let serverId: string;
let counter: StatementCounter;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  owner = await registerUser(srv.url);
  serverId = (await createServer(srv.url, owner)).server.id;
  // Every write transaction's statements go through the counter.
  const store = srv.app.ctx.store;
  const write = store.write.bind(store);
  store.write = <T>(work: (tx: Tx) => Promise<T>) => write((tx) => work(tx.withPlugin(counter) as Tx));
});
afterAll(() => srv?.close());

/** Statements of the write transactions `send` caused. */
async function statementsOf(send: () => Promise<{ status: number }>, status: number): Promise<number> {
  counter = new StatementCounter();
  const r = await send();
  expect(r.status).toBe(status);
  return counter.count;
}

const createRole = (name: string) => call(srv.url, 'POST', `/servers/${serverId}/roles`, { auth: owner.auth, body: { name } });
const moveRole = (id: string, position: number) =>
  call(srv.url, 'PATCH', `/servers/${serverId}/roles/${id}`, { auth: owner.auth, body: { position } });

describe('role create and move cost the same number of statements with 2 roles or 120', () => {
  it('create: constant; move from the bottom to the top: constant', async () => {
    counter = new StatementCounter();
    const firstA = await statementsOf(() => createRole('a'), 201);
    const firstB = await statementsOf(() => createRole('b'), 201);
    const small = (await call(srv.url, 'GET', `/servers/${serverId}/roles`, { auth: owner.auth })).body as Array<{
      id: string;
      position: number;
    }>;
    const bottomSmall = small.find((r) => r.position === 1)!;
    const moveSmall = await statementsOf(() => moveRole(bottomSmall.id, 2), 200);

    for (let i = 0; i < 118; i += 6) await Promise.all(Array.from({ length: 6 }, (_, k) => createRole(`r${i + k}`)));
    const createBig = await statementsOf(() => createRole('late'), 201);
    const big = (await call(srv.url, 'GET', `/servers/${serverId}/roles`, { auth: owner.auth })).body as Array<{
      id: string;
      position: number;
    }>;
    expect(big.length).toBeGreaterThan(120);
    const bottomBig = big.find((r) => r.position === 1)!;
    const moveBig = await statementsOf(() => moveRole(bottomBig.id, big.length - 1), 200);

    expect(createBig).toBe(firstB);
    expect(firstA).toBe(firstB);
    expect(moveBig).toBe(moveSmall);
    // And every position is still 1..n, each once.
    const after = (await call(srv.url, 'GET', `/servers/${serverId}/roles`, { auth: owner.auth })).body as Array<{
      id: string;
      position: number;
    }>;
    const positions = after
      .filter((r) => r.id !== serverId)
      .map((r) => r.position)
      .sort((a, b) => a - b);
    expect(positions).toEqual(Array.from({ length: after.length - 1 }, (_, i) => i + 1));
    expect(after.find((r) => r.id === bottomBig.id)?.position).toBe(after.length - 1);
  }, 120_000);
});
