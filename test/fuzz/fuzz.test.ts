/**
 * A fuzz suite over every HTTP route: thousands of generated bad requests (wrong types,
 * sizes, nesting, encodings, ids, methods, content types, headers, credentials, query
 * strings, paths, multipart and form bodies) and, for every answer: no 5xx, every 4xx
 * JSON with a string `error`, no stack trace or internal detail, and a healthy server
 * afterwards (docs/api.md#errors).
 *
 * Deterministic for a seed. Environment:
 * - FUZZ_SEED: another seed (the default is below); a failure prints the seed in use.
 * - FUZZ_ONLY=open#42,limited#7: replay only those requests (the ids a report gives).
 * - FUZZ_REQUESTS, FUZZ_LIMITED_REQUESTS: how many requests each run sends.
 */
import type { Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createServer as makeServer, postMessage, registerUser } from '../factories.js';
import { TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { type OracleContext, privatePaths, webFilesOf } from './check.js';
import { generate } from './generate.js';
import { type Route, discoverRoutes } from './routes.js';
import { type RunResult, report, runRequests, summary } from './run.js';
import type { FuzzRequest } from './transport.js';
import { type FuzzWorld, buildWorld } from './world.js';

const SEED = process.env.FUZZ_SEED || 'parley-fuzz-2026';
const COUNT = Number(process.env.FUZZ_REQUESTS || 10_000);
const LIMITED_COUNT = Number(process.env.FUZZ_LIMITED_REQUESTS || 1_500);
const ONLY = (process.env.FUZZ_ONLY ?? '').split(',').filter(Boolean);
const CONCURRENCY = 16;

/** The request indices a run sends: all of them, or the ones FUZZ_ONLY names for `phase`. */
function indices(phase: string, count: number): number[] {
  if (ONLY.length === 0) return Array.from({ length: count }, (_, i) => i);
  return ONLY.filter((id) => id.startsWith(`${phase}#`)).map((id) => Number(id.slice(phase.length + 1)));
}

let open: TestServer;
let limited: TestServer;
let openWorld: FuzzWorld;
let limitedWorld: FuzzWorld;
let routes: Route[];

function oracle(srv: TestServer, world: FuzzWorld): OracleContext {
  return {
    // The harness leaves WEB_DIR unset: the service serves the repository's web/dist.
    webFiles: webFilesOf(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/dist')),
    secrets: world.secrets,
    privatePaths: privatePaths(srv.dataDir),
  };
}

/** Sends the generated requests of `phase` to `srv`. */
function fuzz(phase: string, srv: TestServer, world: FuzzWorld, count: number): Promise<RunResult> {
  const ids = indices(phase, count);
  const make = (k: number) => generate({ seed: SEED, phase, world, routes }, ids[k]!);
  return runRequests(srv.url, ids.length, make, oracle(srv, world), { concurrency: CONCURRENCY });
}

// Every connection each server accepted (with its first bytes), so a shutdown that hangs
// can say which request left a connection behind, and still be cleaned up.
const sockets = new Map<TestServer, Map<Socket, string>>();
const lingering: string[] = [];
const closed = new Set<TestServer>();

function track(srv: TestServer): void {
  const live = new Map<Socket, string>();
  sockets.set(srv, live);
  srv.app.app.server.on('connection', (s: Socket) => {
    live.set(s, '');
    s.once('data', (d: Buffer) => live.has(s) && live.set(s, d.subarray(0, 200).toString('latin1')));
    s.once('close', () => live.delete(s));
  });
}

/** Closes `srv`; resolves false if that took longer than `ms` (and then forces it). */
async function closeWithin(srv: TestServer, ms: number): Promise<boolean> {
  if (closed.has(srv)) return true;
  closed.add(srv);
  const done = srv.close();
  const inTime = await Promise.race([done.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), ms).unref())]);
  if (!inTime) {
    for (const [s, first] of sockets.get(srv) ?? []) {
      lingering.push(first);
      s.destroy();
    }
    await done;
  }
  return inTime;
}

beforeAll(async () => {
  console.log(`fuzz seed: ${JSON.stringify(SEED)} (set FUZZ_SEED to try another)`);
  // A short request timeout, so a request that stalls mid-body gets its 408 within the run.
  const env = { REQUEST_TIMEOUT_SECONDS: '2' };
  [open, limited] = await Promise.all([startServer({ env: { ...env, RATE_LIMITS: 'off' } }), startServer({ env })]);
  track(open);
  track(limited);
  [openWorld, limitedWorld] = await Promise.all([buildWorld(open.url), buildWorld(limited.url)]);
  routes = discoverRoutes(open.app);
});

afterAll(async () => {
  await Promise.all([open && closeWithin(open, 1000), limited && closeWithin(limited, 1000)]);
});

describe('fuzz', () => {
  it('finds the routes from the running app', () => {
    const keys = routes.map((r) => r.key);
    // A sample the parser must get right: nested prefixes, parameters, HEAD twins.
    for (const k of [
      'GET /healthz',
      'POST /channels/:channelId/messages',
      'PUT /channels/:channelId/messages/:messageId/reactions/:emoji',
      'GET /uploads/:id/:secret/:filename',
      'POST /webhooks/:webhookId/:token/slack',
      'HEAD /servers/:serverId',
    ]) {
      expect(keys).toContain(k);
    }
    expect(routes.length).toBeGreaterThanOrEqual(40);
  });

  it(`${COUNT} bad requests over every route (rate limits off): no 5xx, JSON errors, no internals`, async () => {
    const r = await fuzz('open', open, openWorld, COUNT);
    console.log(summary('rate limits off', r));

    if (ONLY.length === 0) {
      expect(r.sent).toBe(COUNT);
      // Every registered route was really exercised (reached, not just aimed at).
      const floor = Math.max(1, Math.min(40, Math.floor(COUNT / routes.length / 5)));
      const starved = routes.filter((rt) => (r.reached.get(rt.key) ?? 0) < floor).map((rt) => `${rt.key}: ${r.reached.get(rt.key) ?? 0}`);
      expect(starved, `routes reached fewer than ${floor} times`).toEqual([]);
    }
    expect(r.violations.size, report(SEED, [['rate limits off', r]])).toBe(0);
  }, 180_000);

  it(`${LIMITED_COUNT} bad requests with rate limits on: 429s are JSON with retryAfter and Retry-After`, async () => {
    const r = await fuzz('limited', limited, limitedWorld, LIMITED_COUNT);
    if (ONLY.length === 0) {
      // Some limits trip whatever the seed: typing (15 per 5 s) and login (10 per 60 s).
      const burst = (i: number): FuzzRequest => {
        const typing = i < 20;
        return {
          phase: 'burst',
          index: i,
          target: typing ? 'POST /channels/:channelId/typing' : 'POST /auth/login',
          method: 'POST',
          path: typing ? `/channels/${limitedWorld.main.channelId}/typing` : '/auth/login',
          headers: typing ? [['Authorization', limitedWorld.bot.auth]] : [['Content-Type', 'application/json']],
          body: typing ? undefined : Buffer.from(JSON.stringify({ username: `nobody${i}`, password: 'wrong password' })),
          raw: false,
          notes: ['burst'],
        };
      };
      await runRequests(limited.url, 32, burst, oracle(limited, limitedWorld), { concurrency: 4, into: r });
      expect(r.rateLimited, 'no request was rate limited').toBeGreaterThan(0);
    }
    console.log(summary('rate limits on', r));
    expect(r.violations.size, report(SEED, [['rate limits on', r]])).toBe(0);
  }, 120_000);

  it('the servers are healthy afterwards: health, a message round trip, a gateway identify', async () => {
    for (const [srv, world] of [
      [open, openWorld],
      [limited, limitedWorld],
    ] as const) {
      const health = await call(srv.url, 'GET', '/healthz');
      expect(health.status, health.text).toBe(200);
      expect(health.body.status).toBe('ok');

      // The world's owner, in a channel the fuzzer never named (so no limit is used up).
      const sent = await postMessage(srv.url, world.owner.auth, world.healthChannelId, 'still here after the fuzz');
      const page = await call(srv.url, 'GET', `/channels/${world.healthChannelId}/messages?limit=5`, { auth: world.owner.auth });
      expect(page.status, page.text).toBe(200);
      expect(page.body.map((m: { id: string }) => m.id)).toContain(sent.id);

      const gw = await TestGatewayClient.identify(srv.gatewayUrl, world.owner.auth);
      try {
        expect(gw.ready?.user.id).toBe(world.owner.id);
      } finally {
        await gw.close();
      }
    }

    // Someone new can still do everything from scratch on the server without limits.
    const fresh = await registerUser(open.url);
    const { general } = await makeServer(open.url, fresh, 'after the fuzz');
    const m = await postMessage(open.url, fresh.auth, general.id, 'hello');
    const got = await call(open.url, 'GET', `/channels/${general.id}/messages/${m.id}`, { auth: fresh.auth });
    expect(got.status, got.text).toBe(200);
    expect(got.body.content).toBe('hello');
  }, 60_000);

  it('the servers shut down promptly afterwards (no connection left hanging)', async () => {
    const [a, b] = await Promise.all([closeWithin(open, 5_000), closeWithin(limited, 5_000)]);
    expect({ open: a, limited: b }, `connections left open:\n${lingering.join('\n---\n')}`).toEqual({ open: true, limited: true });
  }, 60_000);
});
