/**
 * Regenerates test/fixtures/upgrade/: a data directory made by the previous release (the
 * schema before 0010), which test/ops/upgrade.test.ts upgrades with the current code.
 *
 * Run it against a checkout of that release, which must have its dependencies and its
 * protocol package built:
 *
 *   git worktree add --detach /tmp/prev cacdf2c
 *   (cd /tmp/prev && npm ci && npm run build:protocol)   # or link node_modules
 *   npx tsx scripts/make-upgrade-fixture.ts /tmp/prev
 *   git worktree remove --force /tmp/prev
 *
 * It starts that release's service on an empty data directory, creates people, a server
 * with channels, roles (bob holds two, carol one; a third, held by carol, is deleted, as
 * that release rewrote its holders' role lists), an invite, members, a bot, messages (one
 * with a file, one edited, one reply), reactions and a DM through its API, stops it (SIGTERM), then writes the
 * database checkpointed into one file (no -wal), the uploads, and `manifest.json`, which
 * says what the test should find (names, the password, ids, the bot's token).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

const previous = process.argv[2];
if (!previous || !fs.existsSync(path.join(previous, 'src', 'main.ts'))) {
  console.error('usage: npx tsx scripts/make-upgrade-fixture.ts <checkout of the previous release>');
  process.exit(2);
}
const out = path.resolve(import.meta.dirname, '..', 'test', 'fixtures', 'upgrade');
const PASSWORD = 'correct horse battery';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-fixture-'));

const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  cwd: previous,
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: 'http://127.0.0.1:0',
    RATE_LIMITS: 'off',
    DATABASE_URL: '',
    REDIS_URL: '',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise<string>((resolve, reject) => {
  let seen = '';
  child.stdout.on('data', (d: Buffer) => {
    seen += d.toString();
    const m = /listening on (http:\/\/[^\s)]+)/.exec(seen);
    if (m) resolve(m[1]!);
  });
  child.once('exit', (code) => reject(new Error(`the previous release exited (${code}) before listening:\n${seen}`)));
});

// biome-ignore lint/suspicious/noExplicitAny: answers of an earlier release's API, whatever shapes it had then
async function api(method: string, url: string, auth?: string, body?: unknown, raw?: FormData): Promise<any> {
  const headers: Record<string, string> = auth ? { authorization: auth } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + url, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const person = async (username: string) => {
  const r = await api('POST', '/auth/register', undefined, { username, password: PASSWORD });
  return { id: r.user.id as string, username, auth: `Bearer ${r.token}` };
};

const alice = await person('alice');
const bob = await person('bob');
const carol = await person('carol');
const server = await api('POST', '/servers', alice.auth, { name: 'Fixture server' });
const [general] = await api('GET', `/servers/${server.id}/channels`, alice.auth);
const random = await api('POST', `/servers/${server.id}/channels`, alice.auth, { name: 'random' });
const invite = await api('POST', `/servers/${server.id}/invites`, alice.auth);
await api('POST', `/invites/${invite.code}`, bob.auth);
await api('POST', `/invites/${invite.code}`, carol.auth);
const role = await api('POST', `/servers/${server.id}/roles`, alice.auth, { name: 'moderators', color: 0x3366ff, hoist: true });
await api('PUT', `/servers/${server.id}/members/${bob.id}/roles/${role.id}`, alice.auth);
// Several roles in the old comma-joined column, and one deleted there (0021 moves them to member_roles).
const helpers = await api('POST', `/servers/${server.id}/roles`, alice.auth, { name: 'helpers' });
const gone = await api('POST', `/servers/${server.id}/roles`, alice.auth, { name: 'temporary' });
for (const [user, r] of [
  [bob, helpers],
  [carol, gone],
  [carol, helpers],
] as const)
  await api('PUT', `/servers/${server.id}/members/${user.id}/roles/${r.id}`, alice.auth);
await api('DELETE', `/servers/${server.id}/roles/${gone.id}`, alice.auth);
const bot = await api('POST', '/bots', alice.auth, { name: 'Fixture bot' });
await api('POST', `/servers/${server.id}/bots`, alice.auth, { botId: bot.id });

const form = new FormData();
form.append('file', new Blob(['a file uploaded before the upgrade\n'], { type: 'text/plain' }), 'before.txt');
const file = await api('POST', '/upload', alice.auth, undefined, form);

const post = (auth: string, channelId: string, body: unknown) => api('POST', `/channels/${channelId}/messages`, auth, body);
const messages = [
  await post(alice.auth, general.id, { content: 'hello from the previous release' }),
  await post(bob.auth, general.id, { content: 'hi alice' }),
  await post(alice.auth, general.id, { content: 'here is a file', attachments: [{ url: file.url, filename: file.filename }] }),
  await post(carol.auth, random.id, { content: 'over in random' }),
  await post(bot.token ? `Bot ${bot.token}` : '', general.id, { content: 'beep from the bot' }),
];
const reply = await post(bob.auth, general.id, { content: 'a reply', messageReference: { messageId: messages[0].id } });
messages.push(reply);
await api('PATCH', `/channels/${general.id}/messages/${messages[1].id}`, bob.auth, { content: 'hi alice (edited)' });
await api('PUT', `/channels/${general.id}/messages/${messages[0].id}/reactions/${encodeURIComponent('👍')}`, bob.auth);
await api('PUT', `/channels/${general.id}/messages/${messages[0].id}/reactions/${encodeURIComponent('👍')}`, carol.auth);
const dm = await api('POST', '/users/@me/channels', alice.auth, { recipientIds: [bob.id] });
const dmMessage = await post(alice.auth, dm.id, { content: 'a direct message' });

child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));

// One file: the WAL folded in, then rewritten compactly.
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const db = new Database(path.join(dataDir, 'parley.db'));
db.pragma('wal_checkpoint(TRUNCATE)');
const schema = (db.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map((r) => r.name);
db.exec(`VACUUM INTO '${path.join(out, 'parley.db').replaceAll("'", "''")}'`);
db.close();
const fixed = new Database(path.join(out, 'parley.db'));
fixed.pragma('journal_mode = DELETE');
fixed.close();
fs.cpSync(path.join(dataDir, 'uploads'), path.join(out, 'uploads'), { recursive: true });
fs.rmSync(dataDir, { recursive: true, force: true });

const manifest = {
  madeBy: 'scripts/make-upgrade-fixture.ts',
  schema,
  password: PASSWORD,
  users: { alice: alice.id, bob: bob.id, carol: carol.id },
  server: { id: server.id, name: server.name, general: general.id, random: random.id, role: role.id, helpers: helpers.id },
  bot: { id: bot.id, token: bot.token },
  file: { url: new URL(file.url).pathname, content: 'a file uploaded before the upgrade\n' },
  messages: {
    general: messages.filter((m) => m.channelId === general.id).map((m) => ({ id: m.id, authorId: m.author.id })),
    random: messages.filter((m) => m.channelId === random.id).map((m) => ({ id: m.id, authorId: m.author.id })),
    edited: messages[1].id,
    withFile: messages[2].id,
    reply: reply.id,
  },
  dm: { id: dm.id, message: dmMessage.id },
};
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${out} (schema ${schema.at(-1)}, ${fs.statSync(path.join(out, 'parley.db')).size} bytes)`);
