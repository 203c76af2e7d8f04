/**
 * A database as Parley left it before snowflakes: schema 0003, every id a ULID. The
 * migration suite and the HTTP suite for old links both start from it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CamelCasePlugin, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { hashToken } from '../../src/crypto.js';
import { openSqlite, SqliteIntegers } from '../../src/store/dialects/sqlite.js';
import { migrateToLatest } from '../../src/store/migrations.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID of millisecond `ms`, with a random tail (or `tail`, to order ids within one ms). */
export function ulid(ms: number, tail?: string): string {
  let time = '';
  for (let t = ms, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const rest = tail ?? [...randomBytes(16)].map((b) => CROCKFORD[b % 32]).join('');
  return time + rest.padEnd(16, '0').slice(0, 16);
}

/** A connection to the database a Parley at `dataDir` / `databaseUrl` uses, as the store opens it. */
export function adminOf(where: { dataDir: string; databaseUrl?: string }): Kysely<any> {
  if (where.databaseUrl)
    return new Kysely<any>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: where.databaseUrl, max: 2 }) }),
      plugins: [new CamelCasePlugin()],
    });
  fs.mkdirSync(where.dataDir, { recursive: true });
  return new Kysely<any>({
    dialect: new SqliteDialect({ database: openSqlite(path.join(where.dataDir, 'parley.db')) }),
    plugins: [new CamelCasePlugin(), new SqliteIntegers()],
  });
}

/** What the seeded database holds, by role: every id a ULID, with the secrets of its credentials. */
export interface LegacyWorld {
  base: string;
  owner: string;
  bot: string;
  botToken: string;
  session: string;
  sessionToken: string;
  server: string;
  channel: string;
  /** A deleted user who still authors a message. */
  goneAuthor: string;
  upload: string;
  avatarUpload: string;
  hook: string;
  hookSecret: string;
  /** Messages of `channel` in creation order; [1] and [2] share a millisecond. */
  messages: string[];
  webhookMessage: string;
  /** The millisecond of the newest id. */
  newestMs: number;
}

/**
 * Migrates the database to 0003 (the last schema with ULIDs) and fills it as the old code
 * would have. `uploadsDir`, when given, receives the upload's bytes under its ULID.
 */
export async function seedLegacyDatabase(
  db: Kysely<any>,
  opts: { schema?: string; base: string; uploadsDir?: string; now?: number },
): Promise<LegacyWorld> {
  await migrateToLatest(db, opts.schema, '0003_uploads');
  const t0 = (opts.now ?? Date.now()) - 60_000;
  const at = (ms: number) => new Date(ms).toISOString();
  const w: LegacyWorld = {
    base: opts.base,
    owner: ulid(t0),
    bot: ulid(t0 + 1),
    botToken: '',
    session: ulid(t0 + 2),
    sessionToken: '',
    server: ulid(t0 + 3),
    channel: ulid(t0 + 4),
    goneAuthor: ulid(t0 - 1000),
    upload: ulid(t0 + 5),
    avatarUpload: ulid(t0 + 5, 'ZZZZZZZZZZZZZZZZ'),
    hook: ulid(t0 + 6),
    hookSecret: 'hooksecret-hooksecret-hooksecret-0123456789',
    // The second and third share a millisecond: their tails decide their order.
    messages: [ulid(t0 + 10), ulid(t0 + 11, '0000000000000001'), ulid(t0 + 11, '0000000000000002'), ulid(t0 + 12)],
    webhookMessage: ulid(t0 + 13),
    newestMs: t0 + 13,
  };
  const botSecret = 'botsecret-botsecret-botsecret-0123456789ab';
  const sessionSecret = 'sessionsecret-sessionsecret-0123456789abc';
  w.botToken = `${w.bot}.${botSecret}`;
  w.sessionToken = `${w.session}.${sessionSecret}`;
  const avatarUrl = `${w.base}/uploads/${w.avatarUpload}/me.png`;
  const attachment = { url: `${w.base}/uploads/${w.upload}/notes.txt`, filename: 'notes.txt', size: 5, contentType: 'text/plain' };

  await db
    .insertInto('users')
    .values([
      {
        id: w.owner,
        username: 'OldOwner',
        username_key: 'oldowner',
        name: 'OldOwner',
        bot: 0,
        owner_id: null,
        password_hash: 'x',
        token_hash: null,
        avatar: avatarUrl,
        created_at: at(t0),
        is_public: 0,
      },
      {
        id: w.bot,
        username: null,
        username_key: null,
        name: 'OldBot',
        bot: 1,
        owner_id: w.owner,
        password_hash: null,
        token_hash: hashToken(botSecret),
        avatar: null,
        created_at: at(t0 + 1),
        is_public: 0,
      },
    ])
    .execute();
  await db
    .insertInto('sessions')
    .values({ id: w.session, user_id: w.owner, token_hash: hashToken(sessionSecret), created_at: at(t0 + 2) })
    .execute();
  await db
    .insertInto('servers')
    .values({ id: w.server, name: 'Old server', owner_id: w.owner, created_at: at(t0 + 3) })
    .execute();
  await db
    .insertInto('channels')
    .values({ id: w.channel, server_id: w.server, name: 'general', created_at: at(t0 + 4) })
    .execute();
  // Every permission as schema 0003 stored it: READ_MESSAGES 1, SEND_MESSAGES 2, ADD_REACTIONS 4, ATTACH_FILES 8.
  const all = 1 | 2 | 4 | 8;
  await db
    .insertInto('members')
    .values([
      { server_id: w.server, user_id: w.owner, permissions: all, joined_at: at(t0 + 3) },
      { server_id: w.server, user_id: w.bot, permissions: all, joined_at: at(t0 + 4) },
    ])
    .execute();
  await db
    .insertInto('invites')
    .values({ code: 'oldinvite', server_id: w.server, created_by: w.owner, created_at: at(t0 + 4) })
    .execute();
  await db
    .insertInto('uploads')
    .values([
      { id: w.upload, uploader_id: w.bot, filename: 'notes.txt', content_type: 'text/plain', size: 5, created_at: at(t0 + 5) },
      { id: w.avatarUpload, uploader_id: w.owner, filename: 'me.png', content_type: 'image/png', size: 3, created_at: at(t0 + 5) },
    ])
    .execute();
  if (opts.uploadsDir) {
    fs.mkdirSync(opts.uploadsDir, { recursive: true });
    fs.writeFileSync(path.join(opts.uploadsDir, w.upload), 'hello');
    fs.writeFileSync(path.join(opts.uploadsDir, w.avatarUpload), 'png');
  }
  await db
    .insertInto('webhooks')
    .values({
      id: w.hook,
      server_id: w.server,
      channel_id: w.channel,
      name: 'CI',
      avatar: avatarUrl,
      token_hash: hashToken(w.hookSecret),
      created_by: w.owner,
      created_at: at(t0 + 6),
    })
    .execute();
  const message = (id: string, i: number, author: string, extra: Record<string, unknown> = {}) => ({
    id,
    channel_id: w.channel,
    server_id: w.server,
    author_id: author,
    author_name: 'someone',
    author_avatar: null,
    author_bot: 0,
    webhook_id: null,
    content: `message ${i}`,
    attachments: '[]',
    embeds: '[]',
    created_at: at(t0 + 10 + i),
    edited_at: null,
    ...extra,
  });
  await db
    .insertInto('messages')
    .values([
      message(w.messages[0]!, 0, w.owner, { author_avatar: avatarUrl, attachments: JSON.stringify([attachment]) }),
      message(w.messages[1]!, 1, w.bot),
      message(w.messages[2]!, 2, w.goneAuthor),
      message(w.messages[3]!, 3, w.owner),
      message(w.webhookMessage, 4, w.hook, { webhook_id: w.hook, author_bot: 1 }),
    ])
    .execute();
  await db.insertInto('message_attachments').values({ message_id: w.messages[0]!, upload_id: w.upload }).execute();
  await db
    .insertInto('reactions')
    .values({ message_id: w.messages[0]!, emoji: '👍', user_id: w.bot, created_at: at(t0 + 20) })
    .execute();
  await db
    .insertInto('idempotency_keys')
    .values({
      caller: `bot:${w.bot}`,
      key: 'retry-1',
      fingerprint: 'f',
      status: 201,
      body: JSON.stringify({ id: w.messages[1], channelId: w.channel, content: 'message 1' }),
      created_at: at(t0 + 11),
    })
    .execute();
  return w;
}
