/**
 * Message search on a large history: query times (p50, p99) and the size of the full-text
 * index.
 *
 *   npx tsx bench/search.ts [--messages 1000000] [--db sqlite|postgres|all] [--rounds 20] [--keep]
 *
 * For each database (SQLite always; PostgreSQL too when DATABASE_URL is set, or as --db
 * says) it starts Parley in this process on a fresh database (test/harness.ts's
 * startServer: a temporary DATA_DIR, or a fresh schema of DATABASE_URL), sets up a world
 * over HTTP (an owner, a searching member, 5 servers of 8 channels, 2 of them hidden from
 * @everyone in each, the member in 4 of the servers, 40 bot authors), then fills the
 * history with `--messages` messages in bulk (multi-row inserts of 1,000, 10,000 per
 * transaction, through `Store.write`, so the index's triggers or GIN maintenance run as
 * for any message). The text is drawn from a 20,000-word vocabulary with Zipf-distributed
 * frequencies (common English words first, then made-up ones), 1 to ~40 words a message,
 * some links, mentions, files, images and embeds.
 *
 * Then it runs a spread of searches as the member, through the domain function the route
 * calls (`search.messages`: the readable channels, both queries, the wire messages), each
 * kind `--rounds` times with varying words, after one warm-up round, and prints p50, p99
 * and max per kind and over all, the index's size beside the messages table's, and how
 * long the fill (and the index's catching up after it) took. `--keep` leaves the database behind (and says where) to look into plans.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { type SearchQuery, snowflakeAt } from '@parley/protocol';
import { sql } from 'kysely';
import { search } from '../src/domain/search.js';
import type { Caller } from '../src/domain/types.js';
import type { MessageTable } from '../src/store/schema.js';
import { addBot, call, createBot, createChannel, createServer, joinServer, registerUser } from '../test/factories.js';
import { startServer, type TestServer } from '../test/harness.js';

class UsageError extends Error {}

function options() {
  const { values } = parseArgs({
    options: {
      messages: { type: 'string', default: '1000000' },
      db: { type: 'string', default: process.env.DATABASE_URL ? 'all' : 'sqlite' },
      rounds: { type: 'string', default: '20' },
      keep: { type: 'boolean', default: false },
    },
  });
  const messages = Number(values.messages);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(messages) || messages < 1000) throw new UsageError('--messages must be an integer of at least 1000');
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError('--rounds must be a positive integer');
  if (!['sqlite', 'postgres', 'all'].includes(values.db!)) throw new UsageError('--db must be sqlite, postgres or all');
  const dbs = values.db === 'all' ? ['sqlite', 'postgres'] : [values.db!];
  if (dbs.includes('postgres') && !process.env.DATABASE_URL) throw new UsageError('PostgreSQL needs DATABASE_URL');
  return { messages, rounds, keep: values.keep!, dbs: dbs as Array<'sqlite' | 'postgres'> };
}

// ---------------------------------------------------------------------------- text

/** A small deterministic PRNG (mulberry32), so every run writes the same history. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = `the be to of and a in that have i it for not on with he as you do at this but his by from they we say her she or
an will my one all would there their what so up out if about who get which go me when make can like time no just him know take people
into year your good some could them see other than then now look only come its over think also back after use two how our work first
well way even new want because any these give day most us is are was were been has had did said deploy build test release merge branch
commit review bug fix issue error log server client request response cache queue database index query table migration schema api token
user channel message thread reply mention file image link embed bot webhook gateway event latency throughput memory cpu disk network
docker kubernetes pod node cluster backup restore monitor alert metric dashboard config setting feature flag rollout rollback hotfix
patch version upgrade dependency package library module function class method variable type interface promise async await stream
buffer socket timeout retry limit quota permission role admin owner member invite ban kick mute channel voice video call meeting
standup sprint ticket roadmap design spec draft doc note todo done blocked ready shipped tomorrow today yesterday morning afternoon
evening weekend monday tuesday wednesday thursday friday lunch coffee pizza thanks please sorry great nice cool awesome weird broken
works fixed failing flaky green red yellow blue`.split(/\s+/);
const SYLLABLES = 'ka ri to mo na se lu pe vi da gor tan mel fis bro qua zen pix lor dum sha tek vor nim'.split(' ');

/** 20,000 words: the common ones first, then made-up ones of 2 to 4 syllables. */
function vocabulary(random: () => number): string[] {
  const words = new Set(COMMON);
  while (words.size < 20_000) {
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Zipf sampling over ranks 1..n (s = 1.07): a table of cumulative weights and a binary search. */
function zipf(n: number, random: () => number) {
  const cumulative = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cumulative[i] = sum += 1 / (i + 1) ** 1.07;
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

// ---------------------------------------------------------------------------- world

interface World {
  srv: TestServer;
  member: Caller;
  servers: Array<{ id: string; channels: string[]; hidden: string[]; joined: boolean }>;
  authors: string[];
}

async function world(db: 'sqlite' | 'postgres'): Promise<World> {
  const srv = await startServer({ postgres: db === 'postgres', env: { RATE_LIMITS: 'off' } });
  const owner = await registerUser(srv.url);
  const member = await registerUser(srv.url);
  const servers: World['servers'] = [];
  for (let s = 0; s < 5; s++) {
    const { server, general } = await createServer(srv.url, owner, `server ${s}`);
    const channels = [general.id];
    for (let c = 1; c < 8; c++) channels.push((await createChannel(srv.url, owner, server.id, `c${c}`)).id);
    const hidden = channels.slice(6);
    for (const id of hidden) {
      const r = await call(srv.url, 'PUT', `/channels/${id}/permissions/${server.id}`, {
        auth: owner.auth,
        body: { type: 'role', deny: String(1n << 10n) },
      });
      if (r.status !== 204) throw new Error(`overwrite failed: ${r.status} ${r.text}`);
    }
    const joined = s < 4;
    if (joined) await joinServer(srv.url, owner, member, server.id);
    servers.push({ id: server.id, channels, hidden, joined });
  }
  const authors = [owner.id, member.id];
  for (let b = 0; b < 40; b++) {
    const bot = await createBot(srv.url, owner);
    await addBot(srv.url, owner, servers[b % 5]!.id, bot.id);
    authors.push(bot.id);
  }
  return { srv, member: { id: member.id, name: member.name, bot: false, avatar: null }, servers, authors };
}

/** Fills the history: `count` messages over the last year, in id order, in bulk. */
async function fill(w: World, count: number, words: string[]): Promise<{ seconds: number; firstId: string; lastId: string }> {
  const store = w.srv.app.ctx.store;
  const random = rng(42);
  const pick = zipf(words.length, random);
  const channels = w.servers.flatMap((s) => s.channels.map((c) => ({ channel: c, server: s.id })));
  const start = Date.now() - 365 * 86_400_000;
  const step = (365 * 86_400_000) / count;
  const columns =
    'id, channel_id, server_id, author_id, author_name, author_avatar, author_bot, webhook_id, content, attachments, embeds, created_at, edited_at, mentions, mention_roles, mention_everyone, reference_id, pinned_at';
  const file = JSON.stringify([
    { url: 'https://chat.example/uploads/1/notes.txt', filename: 'notes.txt', size: 120, contentType: 'text/plain' },
  ]);
  const image = JSON.stringify([
    { url: 'https://chat.example/uploads/2/shot.png', filename: 'shot.png', size: 4096, contentType: 'image/png' },
  ]);
  const embed = JSON.stringify([{ title: 'Build passed', description: 'all green' }]);
  let firstId = '';
  let lastId = '';
  const began = Date.now();
  const BATCH = 1000;
  const PER_TX = 10;
  for (let done = 0; done < count; ) {
    const statements: Array<{ rows: MessageTable[]; mentions: Array<[string, string, string]> }> = [];
    for (let t = 0; t < PER_TX && done < count; t++) {
      const rows: MessageTable[] = [];
      const mentions: Array<[string, string, string]> = [];
      for (let i = 0; i < BATCH && done < count; i++, done++) {
        const ms = Math.floor(start + done * step);
        // Worker 1023: never one the running store leased.
        const id = ((BigInt(snowflakeAt(ms)) | (1023n << 12n)) + BigInt(done % 4096)).toString();
        const { channel, server } = channels[Math.floor(random() * channels.length)]!;
        const author = w.authors[Math.floor(random() * w.authors.length)]!;
        const length = 1 + Math.floor(random() ** 2 * 40);
        const parts: string[] = [];
        for (let k = 0; k < length; k++) parts.push(words[pick()]!);
        if (random() < 0.3) parts[0] = parts[0]!.charAt(0).toUpperCase() + parts[0]!.slice(1);
        let content = parts.join(' ') + (random() < 0.5 ? '.' : random() < 0.5 ? '!' : '');
        if (random() < 0.05) content += ` https://example.com/${words[pick()]}/${words[pick()]}`;
        let mentioned = '[]';
        if (random() < 0.03) {
          const who = w.authors[Math.floor(random() * w.authors.length)]!;
          content = `<@${who}> ${content}`;
          mentioned = JSON.stringify([{ id: who, name: 'someone', bot: false, avatar: null }]);
          mentions.push([who, channel, id]);
        }
        const r = random();
        rows.push({
          id,
          channelId: channel,
          serverId: server,
          authorId: author,
          authorName: 'author',
          authorAvatar: null,
          authorBot: 1,
          webhookId: null,
          content,
          attachments: r < 0.02 ? file : r < 0.03 ? image : '[]',
          embeds: r > 0.99 ? embed : '[]',
          createdAt: new Date(ms).toISOString(),
          editedAt: null,
          mentions: mentioned,
          mentionRoles: '',
          mentionEveryone: 0,
          referenceId: null,
          pinnedAt: null,
          components: null,
          interaction: null,
          type: 0,
        });
        if (!firstId) firstId = id;
        lastId = id;
      }
      statements.push({ rows, mentions });
    }
    await store.write(async (tx) => {
      for (const { rows, mentions } of statements) {
        const values = rows.map(
          (m) =>
            sql`(${sql.join([
              m.id,
              m.channelId,
              m.serverId,
              m.authorId,
              m.authorName,
              m.authorAvatar,
              m.authorBot,
              m.webhookId,
              m.content,
              m.attachments,
              m.embeds,
              m.createdAt,
              m.editedAt,
              m.mentions,
              m.mentionRoles,
              m.mentionEveryone,
              m.referenceId,
              m.pinnedAt,
            ])})`,
        );
        await sql`insert into messages (${sql.raw(columns)}) values ${sql.join(values)}`.execute(tx);
        if (mentions.length > 0)
          await sql`insert into message_mentions (user_id, channel_id, message_id) values ${sql.join(
            mentions.map(([u, c, m]) => sql`(${u}, ${c}, ${m})`),
          )}`.execute(tx);
      }
    });
    if (done % 100_000 === 0 || done === count) {
      const s = (Date.now() - began) / 1000;
      process.stdout.write(`  filled ${done.toLocaleString('en-US')} messages in ${s.toFixed(0)} s\n`);
    }
  }
  return { seconds: (Date.now() - began) / 1000, firstId, lastId };
}

// ---------------------------------------------------------------------------- queries

interface Kind {
  name: string;
  query: (round: number) => SearchQuery;
}

function kinds(w: World, words: string[], firstId: string, lastId: string): Kind[] {
  const joined = w.servers.filter((s) => s.joined);
  const readable = joined.flatMap((s) => s.channels.filter((c) => !s.hidden.includes(c)));
  const middle = ((BigInt(firstId) + BigInt(lastId)) / 2n).toString();
  // Word bands by frequency rank (the vocabulary is ordered by rank).
  const band = (from: number, round: number) => words[from + round * 7]!;
  return [
    { name: 'common word (rank 1-150)', query: (r) => ({ q: band(0, r) }) },
    { name: 'mid word (rank 300-450)', query: (r) => ({ q: band(300, r) }) },
    { name: 'rare word (rank 10000+)', query: (r) => ({ q: band(10_000, r) }) },
    { name: 'two words (common + mid)', query: (r) => ({ q: `${band(0, r)} ${band(300, r)}` }) },
    { name: 'three-letter prefix', query: (r) => ({ q: band(300, r).slice(0, 3) }) },
    { name: 'two-letter prefix', query: (r) => ({ q: band(0, r).slice(0, 2) }) },
    { name: 'one letter (a word)', query: (r) => ({ q: 'abcdefghilmnoprstuvw'[r % 20]! }) },
    { name: 'word in one channel', query: (r) => ({ q: band(100, r), channelId: readable[r % readable.length]! }) },
    { name: 'word in one server', query: (r) => ({ q: band(100, r), serverId: joined[r % joined.length]!.id }) },
    { name: 'word by one author', query: (r) => ({ q: band(0, r), authorId: w.authors[r % w.authors.length]! }) },
    { name: 'author only (no q)', query: (r) => ({ authorId: w.authors[r % w.authors.length]! }) },
    { name: 'mentions only (no q)', query: (r) => ({ mentions: w.authors[r % w.authors.length]! }) },
    { name: 'word, has=link', query: (r) => ({ q: band(0, r), has: 'link' }) },
    { name: 'has=image only (no q)', query: () => ({ has: 'image' }) },
    { name: 'word before the middle', query: (r) => ({ q: band(100, r), before: middle }) },
    { name: 'common word, offset 1000', query: (r) => ({ q: band(0, r), offset: '1000' }) },
    { name: 'no such word', query: (r) => ({ q: `zzzq${r}` }) },
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const ms = (x: number) => `${x.toFixed(1).padStart(7)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function tableBytes(w: World, db: 'sqlite' | 'postgres'): Promise<number> {
  const q =
    db === 'sqlite'
      ? sql<{ n: number }>`select sum(pgsize) as n from dbstat where name = 'messages'`
      : sql<{ n: string }>`select pg_table_size('messages') as n`;
  return Number((await q.execute(w.srv.app.ctx.store.db)).rows[0]?.n ?? 0);
}

async function run(db: 'sqlite' | 'postgres', o: ReturnType<typeof options>) {
  console.log(`\n== ${db}: ${o.messages.toLocaleString('en-US')} messages`);
  const w = await world(db);
  try {
    const words = vocabulary(rng(7));
    const filled = await fill(w, o.messages, words);
    const ctx = w.srv.app.ctx;
    // Where the index takes messages in later (SQLite since 0010), what the fill left queued.
    const caughtUp = Date.now();
    await ctx.store.catchUpSearchIndex();
    const catchUpSeconds = (Date.now() - caughtUp) / 1000;
    if (db === 'postgres') await sql`analyze`.execute(ctx.store.db);
    console.log(
      `  fill: ${filled.seconds.toFixed(0)} s (${Math.round(o.messages / filled.seconds).toLocaleString('en-US')} messages/s), then ${catchUpSeconds.toFixed(0)} s for the index to take in what was left queued`,
    );
    const index = await ctx.store.adapter.fullText.indexBytes(ctx.store.db);
    const table = await tableBytes(w, db);
    console.log(
      `  index: ${ctx.store.adapter.fullText.name}: ${mib(index)} (${((index / o.messages) | 0).toString()} B/message); messages table ${mib(table)}`,
    );

    const all: number[] = [];
    console.log(`  ${'query'.padEnd(28)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)}  total found (median)`);
    for (const kind of kinds(w, words, filled.firstId, filled.lastId)) {
      await search.messages(ctx, w.member, kind.query(o.rounds)); // warm-up, with a word outside the measured rounds
      const times: number[] = [];
      const totals: number[] = [];
      for (let r = 0; r < o.rounds; r++) {
        const t0 = performance.now();
        const found = await search.messages(ctx, w.member, kind.query(r));
        times.push(performance.now() - t0);
        totals.push(found.total);
      }
      all.push(...times);
      times.sort((a, b) => a - b);
      totals.sort((a, b) => a - b);
      console.log(
        `  ${kind.name.padEnd(28)} ${ms(percentile(times, 50))} ${ms(percentile(times, 99))} ${ms(times.at(-1)!)}  ${percentile(totals, 50).toLocaleString('en-US')}`,
      );
    }
    all.sort((a, b) => a - b);
    console.log(`  ${'ALL'.padEnd(28)} ${ms(percentile(all, 50))} ${ms(percentile(all, 99))} ${ms(all.at(-1)!)}  (${all.length} searches)`);
  } finally {
    if (o.keep) {
      const store = w.srv.app.ctx.store;
      const where = db === 'postgres' ? `schema ${await store.adapter.currentSchema?.(store.db)} of DATABASE_URL` : store.adapter.name;
      await w.srv.app.close();
      console.log(`  kept: ${where}`);
    } else {
      await w.srv.close();
    }
  }
}

async function main() {
  const o = options();
  const cpu = os.cpus();
  console.log(
    `search benchmark — machine: ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.versions.node}, ${os.platform()} ${os.release()}; load average ${os
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
