/**
 * The real things a fuzz run points at, so that requests get past authentication and
 * the 404s into validation and the domain rules: people, bots, servers, channels, a
 * message, a webhook, an invite and an upload.
 *
 * Destructive requests (DELETE, logout) only ever name things of the sacrificial scenes
 * and spare sessions, so the main scene stays usable for the whole run.
 */
import { randomBytes } from 'node:crypto';
import {
  type TestBot,
  type TestUser,
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  upload,
} from '../factories.js';

/** Related real ids: a server, one of its channels, a message in it, and so on. */
export interface Scene {
  serverId: string;
  channelId: string;
  messageId: string;
  botId: string;
  webhookId: string;
  webhookToken: string;
  inviteCode: string;
  /** A member who is not the owner (kicked by a DELETE of a sacrificial scene). */
  userId: string;
  /** A public thread in the channel (docs/threads.md). */
  threadId: string;
}

export interface FuzzWorld {
  owner: TestUser;
  /** A member of the main server, not its owner. */
  member: TestUser;
  /** In no server at all (until a fuzzed invite makes them join). */
  outsider: TestUser;
  /** A member of the main server with every permission. */
  bot: TestBot;
  /** A bot in no server. */
  looseBot: TestBot;
  password: string;
  main: Scene;
  sacrificial: Scene[];
  /**
   * Sessions of a person of their own (in no server), for the routes that end sessions:
   * logging out, ending one's sessions or all others, changing the password, deleting the
   * account. Being someone else's, they can never end the sessions the rest of the run uses.
   */
  spareSessions: string[];
  upload: { id: string; secret: string; filename: string; url: string; path: string };
  /** A channel of the main server the fuzzer never names: the health check posts there. */
  healthChannelId: string;
  /** Every secret handed out (session, bot and webhook tokens, and their secret halves). */
  secrets: string[];
}

export const EMOJIS = ['👍', '🇫🇷', '👩‍💻', '👍🏽', '❤️', '😀'];

async function scene(base: string, owner: TestUser, name: string, member?: TestUser): Promise<Scene & { botToken: string }> {
  const { server, general } = await createServer(base, owner, name);
  const m = await postMessage(base, owner.auth, general.id, 'hello from the fuzz world');
  const bot = await createBot(base, owner);
  await addBot(base, owner, server.id, bot.id);
  const hook = await createWebhook(base, owner, server.id, general.id);
  const inv = await call(base, 'POST', `/servers/${server.id}/invites`, { auth: owner.auth });
  if (inv.status !== 201) throw new Error(`invite failed: ${inv.status} ${inv.text}`);
  const joiner = member ?? (await registerUser(base));
  await joinServer(base, owner, joiner, server.id);
  const thread = await call(base, 'POST', `/channels/${general.id}/threads`, { auth: owner.auth, body: { name: 'fuzz thread' } });
  if (thread.status !== 201) throw new Error(`thread failed: ${thread.status} ${thread.text}`);
  return {
    serverId: server.id,
    channelId: general.id,
    messageId: m.id,
    botId: bot.id,
    botToken: bot.token,
    webhookId: hook.id,
    webhookToken: hook.token,
    inviteCode: inv.body.code,
    userId: joiner.id,
    threadId: thread.body.id,
  };
}

/** Builds the world on the server at `base`: about 40 requests, a few registrations. */
export async function buildWorld(base: string, sacrificialScenes = 2): Promise<FuzzWorld> {
  const password = 'correct horse battery';
  const [owner, member, outsider] = [await registerUser(base), await registerUser(base), await registerUser(base)];
  const main = await scene(base, owner, 'Fuzz main', member);
  const bot: TestBot = { id: main.botId, name: '', token: main.botToken, auth: `Bot ${main.botToken}` };
  const looseBot = await createBot(base, owner);
  const sacrificial: Scene[] = [];
  for (let i = 0; i < sacrificialScenes; i++) sacrificial.push(await scene(base, owner, `Fuzz spare ${i}`));
  const health = await createChannel(base, owner, main.serverId, 'health');

  const up = await upload(base, owner.auth, randomBytes(64), 'fuzz notes.txt', 'text/plain');
  if (up.status !== 200) throw new Error(`upload failed: ${up.status} ${up.text}`);
  const upPath = new URL(up.body.url).pathname;
  const [, , id, secret, filename] = upPath.split('/');

  const spare = await registerUser(base);
  const spareSessions: string[] = [spare.token];
  for (let i = 0; i < 2; i++) {
    const r = await call(base, 'POST', '/auth/login', { body: { username: spare.name, password } });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    spareSessions.push(r.body.token);
  }

  const tokens = [owner.token, member.token, outsider.token, bot.token, looseBot.token, ...spareSessions];
  tokens.push(main.webhookToken, ...sacrificial.map((s) => s.webhookToken));
  const secrets = [...tokens, ...tokens.map((t) => t.split('.').at(-1)!).filter((s) => s.length >= 16)];

  return {
    owner,
    member,
    outsider,
    bot,
    looseBot,
    password,
    main,
    sacrificial,
    spareSessions,
    upload: { id: id!, secret: secret!, filename: decodeURIComponent(filename!), url: up.body.url, path: upPath },
    healthChannelId: health.id,
    secrets,
  };
}
