/**
 * Threads at scale (docs/threads.md): a channel with 10,000 threads and a thread with 100,000
 * messages; p50 / p99 / max of what clients read most, through the native HTTP routes.
 *
 *   npx tsx bench/threads.ts [--threads 10000] [--active 1000] [--messages 100000] [--rounds 200] [--db sqlite|postgres|all]
 *   npm run bench:threads
 *
 * For each database (SQLite always; PostgreSQL too when DATABASE_URL is set, or as --db says)
 * it starts Parley in this process on a fresh database (test/harness.ts's startServer), makes
 * an owner, a member and a server over HTTP, then writes in bulk through `Store.write`:
 *
 * - in #general, `--threads` public threads (each a channel row and a thread row, the owner a
 *   member of each), `--active` of them active and the rest archived at spread-out times, and
 *   one message in #general every tenth thread started from (the thread takes its id);
 * - in one more thread, `--messages` messages.
 *
 * Then, as the member (who joined none of the threads), after 20 warm-up requests each:
 *
 * - `GET /channels/{general}/threads`: the channel's active threads (all `--active`);
 * - `GET /servers/{id}/threads`: the server's active threads;
 * - `GET /channels/{general}/threads/archived?limit=50`, the first page and pages deeper in
 *   (`before` = an archive timestamp from a quarter, half and three quarters of the way);
 * - opening the long thread: `GET /threads/{id}` and `GET /channels/{id}/messages?limit=50`;
 * - `GET /channels/{general}/messages?limit=50` on a page where every tenth message started a
 *   thread (each carries `thread`, read in one query for the page).
 *
 * Targets (p99, on the two-core test machine with other work running): the active lists
 * ≤ 100 ms for 1,000 threads, an archived page ≤ 25 ms, opening a thread ≤ 25 ms.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { snowflakeAt } from '@parley/protocol';
import { sql } from 'kysely';
import { call, createServer, joinServer, registerUser, type TestUser } from '../test/factories.js';
import { startServer, type TestServer } from '../test/harness.js';

class UsageError extends Error {}

function options() {
  const { values } = parseArgs({
    options: {
      threads: { type: 'string', default: '10000' },
      active: { type: 'string', default: '1000' },
      messages: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '200' },
      db: { type: 'string', default: process.env.DATABASE_URL ? 'all' : 'sqlite' },
    },
  });
  const n = (name: string, v: string | undefined, min: number) => {
    const x = Number(v);
    if (!Number.isInteger(x) || x < min) throw new UsageError(`--${name} must be an integer of at least ${min}`);
    return x;
  };
  const threads = n('threads', values.threads, 100);
  const active = n('active', values.active, 1);
  if (active > threads) throw new UsageError('--active must be at most --threads');
  if (!['sqlite', 'postgres', 'all'].includes(values.db!)) throw new UsageError('--db must be sqlite, postgres or all');
  const dbs = values.db === 'all' ? ['sqlite', 'postgres'] : [values.db!];
  if (dbs.includes('postgres') && !process.env.DATABASE_URL) throw new UsageError('PostgreSQL needs DATABASE_URL');
  return {
    threads,
    active,
    messages: n('messages', values.messages, 1000),
    rounds: n('rounds', values.rounds, 10),
    dbs: dbs as Array<'sqlite' | 'postgres'>,
  };
}

/** Snowflakes in time order from `start` (ms), `step` ms apart, unique within one ms. */
function idAt(ms: number, i: number): string {
  return ((BigInt(snowflakeAt(Math.floor(ms))) | (1023n << 12n)) + BigInt(i % 4096)).toString();
}

interface World {
  srv: TestServer;
  owner: TestUser;
  member: TestUser;
  serverId: string;
  general: string;
  longThread: string;
  /** Archive timestamps, newest first (the keyset of the archived pages). */
  archivedAt: string[];
}

async function world(db: 'sqlite' | 'postgres', o: ReturnType<typeof options>): Promise<World> {
  const srv = await startServer({ postgres: db === 'postgres', env: { RATE_LIMITS: 'off' } });
  const owner = await registerUser(srv.url);
  const member = await registerUser(srv.url);
  const { server, general } = await createServer(srv.url, owner, 'threads');
  await joinServer(srv.url, owner, member, server.id);
  const store = srv.app.ctx.store;
  const start = Date.now() - 30 * 86_400_000;
  const archivedAt: string[] = [];
  const began = Date.now();

  // The threads: channel rows, thread rows and the owner's membership, 500 per statement.
  const BATCH = 500;
  for (let done = 0; done < o.threads; ) {
    const channels: unknown[] = [];
    const rows: unknown[] = [];
    const members: unknown[] = [];
    const starters: unknown[] = [];
    for (let i = 0; i < BATCH && done < o.threads; i++, done++) {
      const ms = start + done * ((29 * 86_400_000) / o.threads);
      const id = idAt(ms, done);
      const at = new Date(ms).toISOString();
      const archived = done < o.threads - o.active;
      const archiveTs = archived ? new Date(ms + 86_400_000).toISOString() : at;
      if (archived) archivedAt.push(archiveTs);
      channels.push({
        id,
        serverId: server.id,
        parentId: general.id,
        type: 'public_thread',
        name: `thread ${done}`,
        createdAt: at,
        topic: null,
        position: 0,
      });
      rows.push({
        channelId: id,
        parentId: general.id,
        ownerId: owner.id,
        archived: archived ? 1 : 0,
        locked: 0,
        invitable: 1,
        autoArchiveDuration: 10080,
        archiveTimestamp: archiveTs,
        createTimestamp: at,
        archiveDueAt: new Date(ms + 7 * 86_400_000 + 365 * 86_400_000).toISOString(),
        messageCount: 0,
        memberCount: 1,
        appliedTags: '[]',
      });
      members.push({ threadId: id, userId: owner.id, joinTimestamp: at, flags: 0 });
      // Every tenth thread was started from a message of #general, which shares its id.
      if (done % 10 === 0) starters.push(messageRow(id, general.id, server.id, owner, at, `starter ${done}`));
    }
    await store.write(async (tx) => {
      await tx
        .insertInto('channels')
        .values(channels as never)
        .execute();
      await tx
        .insertInto('threads')
        .values(rows as never)
        .execute();
      await tx
        .insertInto('threadMembers')
        .values(members as never)
        .execute();
      if (starters.length > 0)
        await tx
          .insertInto('messages')
          .values(starters as never)
          .execute();
    });
  }
  process.stdout.write(`  ${o.threads.toLocaleString('en-US')} threads in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);

  // The long thread, through the route, then its messages in bulk.
  const made = await call(srv.url, 'POST', `/channels/${general.id}/threads`, { auth: owner.auth, body: { name: 'the long one' } });
  if (made.status !== 201) throw new Error(`thread: ${made.status} ${made.text}`);
  const longThread = made.body.id as string;
  const filled = Date.now();
  const mStart = Date.now() - 20 * 86_400_000;
  for (let done = 0; done < o.messages; ) {
    const rows: unknown[] = [];
    for (let i = 0; i < 1000 && done < o.messages; i++, done++) {
      const ms = mStart + done * ((19 * 86_400_000) / o.messages);
      rows.push(
        messageRow(
          idAt(ms, done),
          longThread,
          server.id,
          done % 3 === 0 ? member : owner,
          new Date(ms).toISOString(),
          `message ${done} of the long thread`,
        ),
      );
    }
    await store.write(async (tx) => {
      await tx
        .insertInto('messages')
        .values(rows as never)
        .execute();
    });
  }
  await store.write(async (tx) => {
    await sql`update threads set message_count = ${o.messages} where channel_id = ${longThread}`.execute(tx);
  });
  await store.catchUpSearchIndex();
  process.stdout.write(
    `  ${o.messages.toLocaleString('en-US')} messages in one thread in ${((Date.now() - filled) / 1000).toFixed(1)} s\n`,
  );
  archivedAt.sort().reverse();
  return { srv, owner, member, serverId: server.id, general: general.id, longThread, archivedAt };
}

function messageRow(id: string, channelId: string, serverId: string, author: TestUser, at: string, content: string) {
  return {
    id,
    channelId,
    serverId,
    authorId: author.id,
    authorName: author.name,
    authorAvatar: null,
    authorBot: 0,
    webhookId: null,
    content,
    attachments: '[]',
    embeds: '[]',
    createdAt: at,
    editedAt: null,
    mentions: '[]',
    mentionRoles: '',
    mentionEveryone: 0,
    referenceId: null,
    pinnedAt: null,
    components: null,
    interaction: null,
    type: 0,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const ms = (x: number) => `${x.toFixed(1).padStart(7)} ms`;

async function run(db: 'sqlite' | 'postgres', o: ReturnType<typeof options>) {
  console.log(
    `\n== ${db}: ${o.threads.toLocaleString('en-US')} threads (${o.active.toLocaleString('en-US')} active), ${o.messages.toLocaleString('en-US')} messages in one`,
  );
  const w = await world(db, o);
  try {
    const at = (f: number) => encodeURIComponent(w.archivedAt[Math.floor(f * (w.archivedAt.length - 1))] ?? '');
    const kinds: Array<{ name: string; path: (round: number) => string; check: (body: any) => boolean }> = [
      {
        name: "channel's active threads",
        path: () => `/channels/${w.general}/threads`,
        check: (b) => b.threads.length === o.active + 1,
      },
      { name: "server's active threads", path: () => `/servers/${w.serverId}/threads`, check: (b) => b.threads.length === o.active + 1 },
      {
        name: 'archived, first page (50)',
        path: () => `/channels/${w.general}/threads/archived?limit=50`,
        check: (b) => b.threads.length === Math.min(50, o.threads - o.active),
      },
      {
        name: 'archived, a deeper page (50)',
        path: (r) => `/channels/${w.general}/threads/archived?limit=50&before=${at([0.25, 0.5, 0.75][((r % 3) + 3) % 3]!)}`,
        check: (b) => b.threads.length > 0,
      },
      { name: 'open a thread: GET /threads/{id}', path: () => `/threads/${w.longThread}`, check: (b) => b.messageCount === o.messages },
      {
        name: 'open a thread: first 50 messages',
        path: () => `/channels/${w.longThread}/messages?limit=50`,
        check: (b) => b.length === 50,
      },
      {
        name: 'parent page with starters (50)',
        path: () => `/channels/${w.general}/messages?limit=50`,
        check: (b) => b.filter((m: { thread?: unknown }) => m.thread).length > 0,
      },
    ];
    console.log(`  ${'request'.padEnd(36)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)}`);
    for (const kind of kinds) {
      const times: number[] = [];
      for (let r = -20; r < o.rounds; r++) {
        const t0 = performance.now();
        const res = await call(w.srv.url, 'GET', kind.path(r), { auth: w.member.auth });
        const t = performance.now() - t0;
        if (res.status !== 200 || !kind.check(res.body)) throw new Error(`${kind.name}: ${res.status} ${res.text.slice(0, 300)}`);
        if (r >= 0) times.push(t);
      }
      times.sort((a, b) => a - b);
      console.log(`  ${kind.name.padEnd(36)} ${ms(percentile(times, 50))} ${ms(percentile(times, 99))} ${ms(times.at(-1)!)}`);
    }
  } finally {
    await w.srv.close();
  }
}

async function main() {
  const o = options();
  const cpu = os.cpus();
  console.log(
    `threads benchmark — machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.versions.node}; load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const db of o.dbs) await run(db, o);
}

main().catch((err) => {
  console.error(err instanceof UsageError ? err.message : err);
  process.exit(1);
});
