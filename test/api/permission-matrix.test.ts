/**
 * The permission matrix: every REST route that names something by id (server, channel,
 * message, bot, webhook, invite code, upload), called by every kind of caller, with the
 * status each must get under docs/api.md (its Authentication section
 * and each route's table). Rows are generated from one table of routes and one
 * of callers, so a failing row names both. The last HTTP check compares the table with
 * the routes the running app registered, so a new route without rows fails here.
 *
 * The gateway part checks the same boundary for events: an identity never receives the
 * events of a server it does not belong to.
 */
import { onePagePdf } from '../fixtures/pdf.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Res,
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
import { ClientPool, type TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';
import { UNKNOWN_ID, expectCatalogCode } from './assert.js';

let srv: TestServer;
const base = () => srv.url;

// ---------------------------------------------------------------------------------------
// Callers

const CALLERS = {
  anonymous: 'anonymous (no Authorization)',
  malformed: 'a malformed token',
  wrongScheme: 'an unknown auth scheme',
  wrongSession: 'a well-formed but wrong session token',
  wrongBotToken: 'a well-formed but wrong bot token',
  deletedBot: "a deleted bot's token",
  loggedOut: 'a logged-out session',
  stranger: 'a person not in the server',
  botOwner: 'a bot owner not in the server',
  member: 'a member (not the owner)',
  owner: 'the server owner',
  botAll: 'a bot member with all four permissions',
  botSend: 'a bot member with only SEND_MESSAGES',
  botNone: 'a bot member with no permissions',
  botOut: 'a bot not in the server',
} as const;
type CallerKey = keyof typeof CALLERS;
const CALLER_KEYS = Object.keys(CALLERS) as CallerKey[];

/** Callers whose credentials are missing or invalid: 401 wherever a credential is needed. */
const INVALID: ReadonlySet<CallerKey> = new Set<CallerKey>([
  'anonymous',
  'malformed',
  'wrongScheme',
  'wrongSession',
  'wrongBotToken',
  'deletedBot',
  'loggedOut',
]);

type Status = Partial<Record<CallerKey, number>>;

/** 401 for invalid credentials, the listed status for the listed callers, 403 for every other caller. */
const only =
  (ok: Status) =>
  (c: CallerKey): number =>
    INVALID.has(c) ? 401 : (ok[c] ?? 403);

const MEMBERS = (s: number): Status => ({ owner: s, member: s, botAll: s, botSend: s, botNone: s });
/** People hold all four permissions (docs/api.md#authentication); of the bots only botAll reads, reacts and attaches. */
const READERS = (s: number): Status => ({ owner: s, member: s, botAll: s });
const SENDERS = (s: number): Status => ({ owner: s, member: s, botAll: s, botSend: s });
const ALL_PERMISSIONS = ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'];

// ---------------------------------------------------------------------------------------
// The world, built once

interface World {
  owner: TestUser;
  member: TestUser;
  stranger: TestUser;
  botOwner: TestUser;
  botAll: TestBot;
  botSend: TestBot;
  botNone: TestBot;
  botOut: TestBot;
  deletedBotId: string;
  auth: Record<CallerKey, string | undefined>;
  server: { id: string; name: string };
  general: { id: string };
  otherChannel: { id: string };
  renameMe: { id: string; name: string };
  /** A second server of the owner's, so that rows joining through an invite leave `server` alone. */
  joinable: { id: string };
  message: { id: string };
  memberMessage: { id: string };
  hook: { id: string; token: string };
  hookMessage: { id: string };
  deletedHook: { id: string; token: string };
  deletedHookMessage: { id: string };
  /** A bot of botOwner's that the PATCH /bots/{id} rows act on. */
  patchBot: TestBot;
  /** A public thread of the owner's in #general, and a private one nobody else joined (docs/threads.md). */
  thread: { id: string };
  privateThread: { id: string };
  /** A forum of the owner's with an open tag and a moderated one (docs/threads.md#forum-channels). */
  forum: { id: string; availableTags: Array<{ id: string; moderated: boolean }> };
}
let w: World;

/** A secret of the same length and alphabet that is not `secret`. */
const otherSecret = (secret: string) => (secret.startsWith('A') ? 'B' : 'A').repeat(secret.length);

/** Same id, different secret: a token that parses but matches nothing. */
function wrongSecret(token: string): string {
  const dot = token.indexOf('.');
  return `${token.slice(0, dot)}.${otherSecret(token.slice(dot + 1))}`;
}

/**
 * Marks a bot public as its owner. Until PATCH /bots/{id} exists this is a 404, and
 * adding anyone's bot is still allowed; once it exists, this is what allows it.
 */
async function makePublic(owner: TestUser, bot: TestBot): Promise<void> {
  await call(base(), 'PATCH', `/bots/${bot.id}`, { auth: owner.auth, body: { public: true } });
}

/** A new public bot of botOwner's, added to the server by the server owner. */
async function foreignBotInServer(): Promise<TestBot> {
  const bot = await createBot(base(), w.botOwner);
  await makePublic(w.botOwner, bot);
  await addBot(base(), w.owner, w.server.id, bot.id);
  return bot;
}
let sharedForeignBot: Promise<TestBot> | undefined;

async function ids(path: string, key = 'id'): Promise<string[]> {
  const r = await call(base(), 'GET', path, { auth: w.owner.auth });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return (r.body as Array<Record<string, string>>).map((x) => String(x[key]));
}
const memberIds = () => ids(`/servers/${w.server.id}/members`);

async function freshInvite(serverId: string): Promise<string> {
  const r = await call(base(), 'POST', `/servers/${serverId}/invites`, { auth: w.owner.auth });
  if (r.status !== 201) throw new Error(`create invite: ${r.status} ${r.text}`);
  return r.body.code as string;
}

async function ok(pending: Promise<Res>, status: number): Promise<Res> {
  const r = await pending;
  if (r.status !== status) throw new Error(`setup: ${r.status} ${r.text}`);
  return r;
}

async function freshRole(): Promise<string> {
  return (await ok(call(base(), 'POST', `/servers/${w.server.id}/roles`, { auth: w.owner.auth, body: { name: 'fresh' } }), 201)).body
    .id as string;
}

/** One role the rows that change a role (not delete it) share. */
let shared: Promise<string> | undefined;
const sharedRole = () => (shared ??= freshRole());

async function rolesOf(userId: string): Promise<string[]> {
  const members = (await ok(call(base(), 'GET', `/servers/${w.server.id}/members`, { auth: w.owner.auth }), 200)).body as Array<{
    id: string;
    roles: string[];
  }>;
  return members.find((m) => m.id === userId)?.roles ?? [];
}

async function nickOf(userId: string): Promise<string | null> {
  const members = (await ok(call(base(), 'GET', `/servers/${w.server.id}/members`, { auth: w.owner.auth }), 200)).body as Array<{
    id: string;
    nick?: string | null;
  }>;
  return members.find((m) => m.id === userId)?.nick ?? null;
}

async function overwritesOf(channelId: string): Promise<unknown[]> {
  const list = (await ok(call(base(), 'GET', `/servers/${w.server.id}/channels`, { auth: w.owner.auth }), 200)).body as Array<{
    id: string;
    permissionOverwrites: unknown[];
  }>;
  return list.find((c) => c.id === channelId)?.permissionOverwrites ?? [];
}

async function executeHook(hook: { id: string; token: string }, content: string): Promise<{ id: string }> {
  const r = await call(base(), 'POST', `/webhooks/${hook.id}/${hook.token}`, { body: { content } });
  if (r.status !== 200) throw new Error(`execute webhook: ${r.status} ${r.text}`);
  return r.body;
}

/** One file, uploaded on first use (so a broken upload fails only the rows that need it). */
let uploaded: Promise<{ url: string; filename: string; id: string; secret: string; segment: string }> | undefined;
function theUpload() {
  uploaded ??= (async () => {
    const up = await upload(base(), w.owner.auth, 'hello', 'hello.txt', 'text/plain');
    if (up.status !== 200 || typeof up.body?.url !== 'string') throw new Error(`upload: ${up.status} ${up.text}`);
    // Attached in #general, so whoever reads it there may post it again (docs/security.md#files-are-for-those-who-may-see-them).
    const posted = await call(base(), 'POST', `/channels/${w.general.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'the file', attachments: [{ url: up.body.url, filename: 'hello.txt' }] },
    });
    if (posted.status !== 201) throw new Error(`attach: ${posted.status} ${posted.text}`);
    const [id = '', secret = '', segment = ''] = new URL(up.body.url as string).pathname.split('/').slice(2);
    return { url: up.body.url as string, filename: 'hello.txt', id, secret, segment: decodeURIComponent(segment) };
  })();
  return uploaded;
}

async function buildWorld(): Promise<World> {
  const url = base();
  const [owner, member, stranger, botOwner, leaver] = await Promise.all([
    registerUser(url),
    registerUser(url),
    registerUser(url),
    registerUser(url),
    registerUser(url),
  ]);
  const { server, general } = await createServer(url, owner, 'Matrix');
  const { server: joinable } = await createServer(url, owner, 'Joinable');
  await joinServer(url, owner, member, server.id);
  await joinServer(url, owner, leaver, server.id);

  const botAll = await createBot(url, owner);
  const botSend = await createBot(url, owner);
  const botNone = await createBot(url, owner);
  const botOut = await createBot(url, stranger);
  const doomed = await createBot(url, owner);
  await addBot(url, owner, server.id, botAll.id, ALL_PERMISSIONS);
  await addBot(url, owner, server.id, botSend.id, ['SEND_MESSAGES']);
  await addBot(url, owner, server.id, botNone.id, []);
  await addBot(url, owner, server.id, doomed.id);
  // Credentials that were once good, for a member, and no longer are.
  const del = await call(url, 'DELETE', `/bots/${doomed.id}`, { auth: owner.auth });
  if (del.status !== 204) throw new Error(`delete bot: ${del.status} ${del.text}`);
  const out = await call(url, 'POST', '/auth/logout', { auth: leaver.auth });
  if (out.status !== 204) throw new Error(`logout: ${out.status} ${out.text}`);

  const otherChannel = await createChannel(url, owner, server.id, 'other');
  const renameMe = await createChannel(url, owner, server.id, 'rename-me');
  const message = await postMessage(url, owner.auth, general.id, 'the shared message');
  const memberMessage = await postMessage(url, member.auth, general.id, 'a member wrote this');

  const hook = await createWebhook(url, owner, server.id, general.id, 'Hook');
  const deletedHook = await createWebhook(url, owner, server.id, general.id, 'Gone');
  const hookMessage = await executeHook(hook, 'posted by the hook');
  const deletedHookMessage = await executeHook(deletedHook, 'posted before deletion');
  const hd = await call(url, 'DELETE', `/webhooks/${deletedHook.id}`, { auth: owner.auth });
  if (hd.status !== 204) throw new Error(`delete webhook: ${hd.status} ${hd.text}`);

  const patchBot = await createBot(url, botOwner);
  // A command of botAll's for the interaction rows (docs/commands.md).
  const cmd = await call(url, 'PUT', `/bots/${botAll.id}/commands`, { auth: botAll.auth, body: [{ name: 'matrix', description: 'M' }] });
  if (cmd.status !== 200) throw new Error(`commands: ${cmd.status} ${cmd.text}`);

  const thread = (await ok(call(url, 'POST', `/channels/${general.id}/threads`, { auth: owner.auth, body: { name: 'matrix' } }), 201)).body;
  const privateThread = (
    await ok(
      call(url, 'POST', `/channels/${general.id}/threads`, { auth: owner.auth, body: { name: 'hush', type: 'private_thread' } }),
      201,
    )
  ).body;

  const forum = (
    await ok(
      call(url, 'POST', `/servers/${server.id}/channels`, {
        auth: owner.auth,
        body: { name: 'forum', type: 'forum', availableTags: [{ name: 'open' }, { name: 'done', moderated: true }] },
      }),
      201,
    )
  ).body;

  return {
    owner,
    member,
    stranger,
    botOwner,
    botAll,
    botSend,
    botNone,
    botOut,
    deletedBotId: doomed.id,
    auth: {
      anonymous: undefined,
      malformed: 'Bearer not a token',
      wrongScheme: `Basic ${Buffer.from(`${owner.name}:correct horse battery`).toString('base64')}`,
      wrongSession: `Bearer ${wrongSecret(owner.token)}`,
      wrongBotToken: `Bot ${wrongSecret(botAll.token)}`,
      deletedBot: doomed.auth,
      loggedOut: leaver.auth,
      stranger: stranger.auth,
      botOwner: botOwner.auth,
      member: member.auth,
      owner: owner.auth,
      botAll: botAll.auth,
      botSend: botSend.auth,
      botNone: botNone.auth,
      botOut: botOut.auth,
    },
    server,
    general,
    otherChannel,
    renameMe,
    joinable,
    message,
    memberMessage,
    hook,
    hookMessage,
    deletedHook,
    deletedHookMessage,
    patchBot,
    thread,
    privateThread,
    forum,
  };
}

// ---------------------------------------------------------------------------------------
// Rows

type Params = Record<string, string>;

interface Outcome {
  res: Res;
  /** Whether the object the row acted on is as it was before (only for rows that can change it). */
  unchanged?: boolean;
}

interface Row {
  route: string;
  name: string;
  expected: number;
  run(): Promise<Outcome>;
}

/** A route called with an Authorization header, one row per caller. */
interface RouteSpec {
  /** "METHOD /path/:param", exactly as registered. */
  route: string;
  variant?: string;
  status(c: CallerKey): number;
  /** The caller who succeeds; the unknown-id rows use it. */
  okCaller: CallerKey;
  /** Path parameters (and `_`-prefixed values for `body`/`unchanged`); fresh objects where the route destroys them. */
  params(): Promise<Params> | Params;
  body?(p: Params): unknown;
  headers?: Record<string, string>;
  /** True while the object is as it was: a refused row must leave it so, a successful one must not. */
  unchanged?(p: Params): Promise<boolean>;
}

/** Path parameters that are not ids (the webhook token has rows of its own). */
const NOT_IDS = new Set(['emoji', 'filename', 'token']);
const BAD_IDS: Array<[string, string]> = [
  ['an unknown', UNKNOWN_ID],
  ['a malformed', 'not-an-id'],
];

const paramsOf = (route: string) => [...route.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');

function fill(route: string, p: Params): { method: string; path: string } {
  const [method = '', template = ''] = route.split(' ');
  const path = template.replace(/:(\w+)/g, (_, k: string) => {
    const v = p[k];
    if (v === undefined) throw new Error(`no value for :${k} in ${route}`);
    return encodeURIComponent(v);
  });
  return { method, path };
}

async function send(spec: RouteSpec, auth: string | undefined, override: Params = {}): Promise<Outcome> {
  const made = await spec.params();
  const p = { ...made, ...override };
  const { method, path } = fill(spec.route, p);
  const res = await call(base(), method, path, { auth, body: spec.body?.(p), headers: spec.headers });
  // With an id overridden, the object made for the row is the one that must be left alone.
  return { res, unchanged: spec.unchanged ? await spec.unchanged(made) : undefined };
}

function rowsOf(spec: RouteSpec): Row[] {
  const title = spec.variant ? `${spec.route} [${spec.variant}]` : spec.route;
  const rows: Row[] = CALLER_KEYS.map((c) => ({
    route: spec.route,
    name: `${title} as ${CALLERS[c]} → ${spec.status(c)}`,
    expected: spec.status(c),
    run: () => send(spec, w.auth[c]),
  }));
  for (const param of paramsOf(spec.route).filter((x) => !NOT_IDS.has(x))) {
    for (const [label, value] of BAD_IDS) {
      rows.push({
        route: spec.route,
        name: `${title} with ${label} :${param} as ${CALLERS[spec.okCaller]} → 404`,
        expected: 404,
        run: () => send(spec, w.auth[spec.okCaller], { [param]: value }),
      });
    }
  }
  return rows;
}

const server = () => ({ serverId: w.server.id });
const inGeneral = () => ({ channelId: w.general.id });

const SPECS: RouteSpec[] = [
  // Bots: the owner deletes (docs/api.md#accounts-and-bots) and marks public (docs/api.md#accounts-and-the-instance, which the adding rule relies on).
  {
    route: 'DELETE /bots/:botId',
    variant: 'a bot in the server',
    okCaller: 'botOwner',
    status: only({ botOwner: 204 }),
    params: async () => {
      const bot = await foreignBotInServer();
      return { botId: bot.id, _auth: bot.auth };
    },
    unchanged: async (p) => (await call(base(), 'GET', '/users/@me', { auth: p._auth })).status === 200,
  },
  {
    route: 'PATCH /bots/:botId',
    variant: 'public: true',
    okCaller: 'botOwner',
    status: only({ botOwner: 200 }),
    params: () => ({ botId: w.patchBot.id }),
    body: () => ({ public: true }),
  },
  // A bot's profile, for its invite page: any person sees a public bot's; a private bot is its owner's alone (404 to other people); bots never ask.
  {
    route: 'GET /bots/:botId/profile',
    variant: "a public bot of botOwner's",
    okCaller: 'stranger',
    status: only({ owner: 200, member: 200, stranger: 200, botOwner: 200 }),
    params: async () => ({ botId: (await (sharedForeignBot ??= foreignBotInServer())).id }),
  },
  {
    route: 'GET /bots/:botId/profile',
    variant: "a private bot of the server owner's",
    okCaller: 'owner',
    status: (c) => (INVALID.has(c) ? 401 : c === 'owner' ? 200 : ['stranger', 'botOwner', 'member'].includes(c) ? 404 : 403),
    params: () => ({ botId: w.botAll.id }),
  },
  // Commands (docs/commands.md): the bot or its owner manages them; a channel's list is for whoever sees it.
  {
    route: 'PUT /bots/:botId/commands',
    okCaller: 'owner',
    status: only({ owner: 200, botAll: 200 }),
    params: () => ({ botId: w.botAll.id }),
    body: () => [{ name: 'matrix', description: 'M' }],
  },
  {
    route: 'GET /bots/:botId/commands',
    okCaller: 'owner',
    status: only({ owner: 200, botAll: 200 }),
    params: () => ({ botId: w.botAll.id }),
  },
  // One command at a time: the same callers as the list. Fresh commands (never `matrix`, which interactions use).
  {
    route: 'POST /bots/:botId/commands',
    okCaller: 'owner',
    status: only({ owner: 201, botAll: 201 }),
    params: () => ({ botId: w.botAll.id }),
    body: () => ({ name: `one-${Math.random().toString(36).slice(2, 10)}`, description: 'M' }),
  },
  {
    route: 'GET /bots/:botId/commands/:commandId',
    okCaller: 'owner',
    status: only({ owner: 200, botAll: 200 }),
    params: async () => ({ botId: w.botAll.id, commandId: await freshCommand() }),
  },
  {
    route: 'PATCH /bots/:botId/commands/:commandId',
    okCaller: 'owner',
    status: only({ owner: 200, botAll: 200 }),
    params: async () => ({ botId: w.botAll.id, commandId: await freshCommand() }),
    body: () => ({ description: 'edited' }),
  },
  {
    route: 'DELETE /bots/:botId/commands/:commandId',
    okCaller: 'owner',
    status: only({ owner: 204, botAll: 204 }),
    params: async () => ({ botId: w.botAll.id, commandId: await freshCommand() }),
  },
  // Whoever sees the channel (VIEW_CHANNEL: botNone does not).
  { route: 'GET /channels/:channelId/commands', okCaller: 'owner', status: only(SENDERS(200)), params: inGeneral },
  // People run commands; bots may not (users_only), strangers are no members.
  {
    route: 'POST /channels/:channelId/interactions',
    okCaller: 'owner',
    status: only({ owner: 202, member: 202 }),
    params: inGeneral,
    body: () => ({ type: 'command', botId: w.botAll.id, name: 'matrix' }),
  },
  // Login sessions (docs/api.md#accounts-and-the-instance): a person ends their own; anyone else's is unknown to them, and bots have none.
  {
    route: 'DELETE /auth/sessions/:sessionId',
    variant: "a session of the owner's",
    okCaller: 'owner',
    status: (c) => (INVALID.has(c) ? 401 : c === 'owner' ? 204 : ['stranger', 'botOwner', 'member'].includes(c) ? 404 : 403),
    params: async () => {
      const r = await call(base(), 'POST', '/auth/login', { body: { username: w.owner.name, password: 'correct horse battery' } });
      if (r.status !== 200) throw new Error(`login: ${r.status} ${r.text}`);
      return { sessionId: String(r.body.token).split('.')[0]!, _auth: `Bearer ${r.body.token}` };
    },
    unchanged: async (p) => (await call(base(), 'GET', '/users/@me', { auth: p._auth })).status === 200,
  },
  // Contacts (docs/api.md#direct-messages): anyone signed in lists the people they share a server with (strangers: none).
  {
    route: 'GET /users/@me/contacts',
    okCaller: 'owner',
    status: (c) => (INVALID.has(c) ? 401 : 200),
    params: () => ({}),
  },
  // Blocks (docs/api.md#direct-messages): anyone signed in blocks anyone; unblocking someone not blocked is 404.
  {
    route: 'PUT /users/@me/blocks/:userId',
    okCaller: 'owner',
    status: (c) => (INVALID.has(c) ? 401 : 204),
    params: async () => ({ userId: (await registerUser(base())).id }),
  },
  {
    route: 'DELETE /users/@me/blocks/:userId',
    okCaller: 'owner',
    status: (c) => (INVALID.has(c) ? 401 : c === 'owner' ? 204 : 404),
    params: async () => {
      const u = await registerUser(base());
      const r = await call(base(), 'PUT', `/users/@me/blocks/${u.id}`, { auth: w.owner.auth });
      if (r.status !== 204) throw new Error(`block: ${r.status} ${r.text}`);
      return { userId: u.id };
    },
  },
  // Servers, channels, invites, members (docs/api.md#servers-channels-members).
  { route: 'GET /servers/:serverId', okCaller: 'owner', status: only(MEMBERS(200)), params: server },
  {
    route: 'PATCH /servers/:serverId',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: server,
    body: () => ({ name: w.server.name }),
  },
  { route: 'GET /servers/:serverId/channels', okCaller: 'owner', status: only(MEMBERS(200)), params: server },
  {
    route: 'POST /servers/:serverId/channels',
    okCaller: 'owner',
    status: only({ owner: 201 }),
    params: server,
    body: () => ({ name: 'made-by-the-matrix' }),
  },
  {
    route: 'PATCH /servers/:serverId/channels',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: server,
    body: () => [{ id: w.renameMe.id }],
  },
  {
    route: 'PATCH /channels/:channelId',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: () => ({ channelId: w.renameMe.id }),
    body: () => ({ name: w.renameMe.name }),
  },
  {
    route: 'DELETE /channels/:channelId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ channelId: (await createChannel(base(), w.owner, w.server.id)).id }),
    unchanged: async (p) => (await ids(`/servers/${w.server.id}/channels`)).includes(p.channelId ?? ''),
  },
  // CREATE_INVITE is in @everyone: people may invite; bots were granted the four legacy names only (docs/permissions.md#bots).
  { route: 'POST /servers/:serverId/invites', okCaller: 'owner', status: only({ owner: 201, member: 201 }), params: server },
  { route: 'GET /servers/:serverId/invites', okCaller: 'owner', status: only({ owner: 200 }), params: server },
  {
    route: 'DELETE /invites/:code',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ code: await freshInvite(w.server.id) }),
    unchanged: async (p) => (await ids(`/servers/${w.server.id}/invites`, 'code')).includes(p.code ?? ''),
  },
  {
    route: 'POST /invites/:code',
    okCaller: 'stranger',
    // People join (already being a member is no error); bots join only when an owner adds them.
    status: only({ stranger: 200, botOwner: 200, member: 200, owner: 200 }),
    params: async () => ({ code: await freshInvite(w.joinable.id) }),
  },
  { route: 'GET /servers/:serverId/members', okCaller: 'owner', status: only(MEMBERS(200)), params: server },
  {
    route: 'DELETE /servers/:serverId/members/:userId',
    variant: 'another person',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => {
      const target = await registerUser(base());
      await joinServer(base(), w.owner, target, w.server.id);
      return { serverId: w.server.id, userId: target.id };
    },
    unchanged: async (p) => (await memberIds()).includes(p.userId ?? ''),
  },
  // Someone else's nickname: MANAGE_NICKNAMES (the owner's; people hold only CHANGE_NICKNAME, bots neither).
  {
    route: 'PATCH /servers/:serverId/members/:userId',
    variant: 'another person',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: async () => {
      const target = await registerUser(base());
      await joinServer(base(), w.owner, target, w.server.id);
      return { serverId: w.server.id, userId: target.id };
    },
    body: () => ({ nick: 'Matrix nick' }),
    unchanged: async (p) => (await nickOf(p.userId ?? '')) === null,
  },
  {
    route: 'POST /servers/:serverId/bots',
    variant: "the server owner's own new bot",
    okCaller: 'owner',
    status: only({ owner: 201 }),
    params: async () => ({ serverId: w.server.id, _botId: (await createBot(base(), w.owner)).id }),
    body: (p) => ({ botId: p._botId, permissions: ['READ_MESSAGES'] }),
    unchanged: async (p) => !(await memberIds()).includes(p._botId ?? ''),
  },
  {
    route: 'PATCH /servers/:serverId/bots/:botId',
    variant: "a bot of botOwner's",
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: async () => ({ serverId: w.server.id, botId: (await (sharedForeignBot ??= foreignBotInServer())).id }),
    body: () => ({ permissions: ALL_PERMISSIONS }),
  },
  {
    route: 'DELETE /servers/:serverId/bots/:botId',
    variant: "a bot of botOwner's",
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ serverId: w.server.id, botId: (await foreignBotInServer()).id }),
    unchanged: async (p) => (await memberIds()).includes(p.botId ?? ''),
  },
  // Webhook management: the server owner only (docs/api.md#webhooks-management-server-owner-only).
  {
    route: 'POST /servers/:serverId/webhooks',
    okCaller: 'owner',
    status: only({ owner: 201 }),
    params: server,
    body: () => ({ name: 'Matrix hook', channelId: w.general.id }),
  },
  { route: 'GET /servers/:serverId/webhooks', okCaller: 'owner', status: only({ owner: 200 }), params: server },
  {
    route: 'PATCH /webhooks/:webhookId',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: () => ({ webhookId: w.hook.id }),
    body: () => ({ name: 'Hook' }),
  },
  {
    route: 'DELETE /webhooks/:webhookId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => {
      const hook = await createWebhook(base(), w.owner, w.server.id, w.general.id);
      return { webhookId: hook.id, _token: hook.token };
    },
    unchanged: async (p) => (await call(base(), 'GET', `/webhooks/${p.webhookId}/${p._token}`)).status === 200,
  },
  // Messages, reactions, typing (docs/api.md#messages).
  {
    route: 'POST /channels/:channelId/messages',
    variant: 'text',
    okCaller: 'owner',
    status: only(SENDERS(201)),
    params: inGeneral,
    body: () => ({ content: 'from the matrix' }),
  },
  {
    route: 'POST /channels/:channelId/messages',
    variant: 'with an attachment (ATTACH_FILES)',
    okCaller: 'owner',
    status: only(READERS(201)),
    params: async () => ({ channelId: w.general.id, _url: (await theUpload()).url }),
    body: (p) => ({ content: 'with a file', attachments: [{ url: p._url, filename: 'hello.txt' }] }),
  },
  { route: 'GET /channels/:channelId/messages', okCaller: 'owner', status: only(READERS(200)), params: inGeneral },
  {
    route: 'GET /channels/:channelId/messages/:messageId',
    okCaller: 'owner',
    status: only(READERS(200)),
    params: () => ({ channelId: w.general.id, messageId: w.message.id }),
  },
  {
    route: 'PATCH /channels/:channelId/messages/:messageId',
    variant: "a member's message",
    okCaller: 'member',
    status: only({ member: 200 }),
    params: () => ({ channelId: w.general.id, messageId: w.memberMessage.id }),
    body: () => ({ content: 'a member wrote this' }),
  },
  {
    route: 'DELETE /channels/:channelId/messages/:messageId',
    variant: "a member's message",
    okCaller: 'member',
    status: only({ member: 204, owner: 204 }),
    params: async () => ({ channelId: w.general.id, messageId: (await postMessage(base(), w.member.auth, w.general.id, 'delete me')).id }),
    unchanged: async (p) =>
      (await call(base(), 'GET', fill('GET /channels/:channelId/messages/:messageId', p).path, { auth: w.owner.auth })).status === 200,
  },
  {
    route: 'PUT /channels/:channelId/messages/:messageId/reactions/:emoji',
    okCaller: 'owner',
    status: only(READERS(200)),
    params: () => ({ channelId: w.general.id, messageId: w.message.id, emoji: '👍' }),
  },
  { route: 'POST /channels/:channelId/typing', okCaller: 'owner', status: only(SENDERS(204)), params: inGeneral },
  // docs/api.md#messages: read states, pins, bulk delete (MANAGE_MESSAGES: the owner's here).
  {
    route: 'POST /channels/:channelId/messages/:messageId/ack',
    okCaller: 'owner',
    status: only(READERS(204)),
    params: () => ({ channelId: w.general.id, messageId: w.message.id }),
  },
  { route: 'GET /channels/:channelId/pins', okCaller: 'owner', status: only(READERS(200)), params: inGeneral },
  {
    route: 'PUT /channels/:channelId/pins/:messageId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ channelId: w.general.id, messageId: (await postMessage(base(), w.member.auth, w.general.id, 'pin me')).id }),
  },
  {
    route: 'DELETE /channels/:channelId/pins/:messageId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: () => ({ channelId: w.general.id, messageId: w.message.id }),
  },
  {
    route: 'POST /channels/:channelId/messages/bulk-delete',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({
      channelId: w.general.id,
      _ids: [
        (await postMessage(base(), w.member.auth, w.general.id, 'spam 1')).id,
        (await postMessage(base(), w.member.auth, w.general.id, 'spam 2')).id,
      ].join(','),
    }),
    body: (p) => ({ messages: p._ids!.split(',') }),
  },
  // Threads (docs/api.md#threads). The matrix's member holds @everyone's defaults (the CREATE_
  // bits and SEND_MESSAGES_IN_THREADS); its bots hold only the legacy names' bits, so they read
  // threads where they read the channel and start none; the owner alone holds MANAGE_THREADS.
  {
    route: 'POST /channels/:channelId/threads',
    okCaller: 'owner',
    status: only({ owner: 201, member: 201 }),
    params: inGeneral,
    body: () => ({ name: 'from the matrix' }),
  },
  {
    // A forum's posts take SEND_MESSAGES there, as on Discord: the bots that send may post.
    route: 'POST /channels/:channelId/threads',
    variant: 'a forum post with its first message',
    okCaller: 'owner',
    status: only({ ...SENDERS(201) }),
    params: () => ({ channelId: w.forum.id }),
    body: () => ({ name: 'a post', message: { content: 'first' }, appliedTags: [w.forum.availableTags[0]!.id] }),
  },
  {
    route: 'POST /channels/:channelId/threads',
    variant: 'a forum post with a moderated tag: MANAGE_THREADS',
    okCaller: 'owner',
    status: only({ owner: 201 }),
    params: () => ({ channelId: w.forum.id }),
    body: () => ({ name: 'a post', message: { content: 'first' }, appliedTags: [w.forum.availableTags[1]!.id] }),
  },
  {
    route: 'POST /channels/:channelId/messages/:messageId/threads',
    okCaller: 'owner',
    status: only({ owner: 201, member: 201 }),
    params: async () => ({ channelId: w.general.id, messageId: (await postMessage(base(), w.owner.auth, w.general.id, 'thread me')).id }),
    body: () => ({ name: 'from a message' }),
  },
  {
    route: 'GET /channels/:channelId/threads',
    okCaller: 'owner',
    status: only({ owner: 200, member: 200, botAll: 200, botSend: 200 }),
    params: inGeneral,
  },
  { route: 'GET /channels/:channelId/threads/archived', okCaller: 'owner', status: only(READERS(200)), params: inGeneral },
  { route: 'GET /servers/:serverId/threads', okCaller: 'owner', status: only(MEMBERS(200)), params: server },
  {
    route: 'GET /threads/:threadId',
    okCaller: 'owner',
    status: only({ owner: 200, member: 200, botAll: 200, botSend: 200 }),
    params: () => ({ threadId: w.thread.id }),
  },
  {
    route: 'GET /threads/:threadId',
    variant: 'a private thread: none to those who may not see it',
    okCaller: 'owner',
    status: (c) => (INVALID.has(c) ? 401 : c === 'owner' ? 200 : (MEMBERS(404)[c] ?? 403)),
    params: () => ({ threadId: w.privateThread.id }),
  },
  {
    route: 'PATCH /threads/:threadId',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: () => ({ threadId: w.thread.id }),
    body: () => ({ name: 'matrix' }),
  },
  {
    route: 'DELETE /threads/:threadId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({
      threadId: (await ok(call(base(), 'POST', `/channels/${w.general.id}/threads`, { auth: w.owner.auth, body: { name: 'doomed' } }), 201))
        .body.id,
    }),
    unchanged: async (p) => (await call(base(), 'GET', `/threads/${p.threadId}`, { auth: w.owner.auth })).status === 200,
  },
  {
    route: 'GET /threads/:threadId/members',
    okCaller: 'owner',
    status: only({ owner: 200, member: 200, botAll: 200, botSend: 200 }),
    params: () => ({ threadId: w.thread.id }),
  },
  {
    route: 'GET /threads/:threadId/members/:userId',
    variant: "the thread's owner",
    okCaller: 'owner',
    status: only({ owner: 200, member: 200, botAll: 200, botSend: 200 }),
    params: () => ({ threadId: w.thread.id, userId: w.owner.id }),
  },
  {
    route: 'PUT /threads/:threadId/members/:userId',
    variant: '@me: joining',
    okCaller: 'owner',
    status: only({ owner: 204, member: 204, botAll: 204, botSend: 204 }),
    params: () => ({ threadId: w.thread.id, userId: '@me' }),
  },
  {
    route: 'DELETE /threads/:threadId/members/:userId',
    variant: '@me: leaving',
    okCaller: 'owner',
    status: only({ owner: 204, member: 204, botAll: 204, botSend: 204 }),
    params: () => ({ threadId: w.thread.id, userId: '@me' }),
  },
  // docs/permissions.md: roles, overwrites, bans, the audit log, server settings. The matrix's
  // member holds only @everyone's defaults, so these are the owner's here; test/api/roles.test.ts
  // covers members granted the permissions.
  {
    route: 'DELETE /servers/:serverId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ serverId: (await createServer(base(), w.owner, 'Doomed')).server.id }),
    unchanged: async (p) => (await call(base(), 'GET', `/servers/${p.serverId}`, { auth: w.owner.auth })).status === 200,
  },
  {
    route: 'GET /invites/:code',
    okCaller: 'anonymous',
    // Anyone holding a code may see where it leads, with or without (valid) credentials.
    status: () => 200,
    params: async () => ({ code: await freshInvite(w.server.id) }),
  },
  { route: 'GET /servers/:serverId/roles', okCaller: 'owner', status: only(MEMBERS(200)), params: server },
  {
    route: 'POST /servers/:serverId/roles',
    okCaller: 'owner',
    status: only({ owner: 201 }),
    params: server,
    body: () => ({ name: 'Matrix role' }),
  },
  {
    route: 'PATCH /servers/:serverId/roles/:roleId',
    okCaller: 'owner',
    status: only({ owner: 200 }),
    params: async () => ({ serverId: w.server.id, roleId: await sharedRole() }),
    body: () => ({ name: 'Shared role' }),
  },
  {
    route: 'DELETE /servers/:serverId/roles/:roleId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ serverId: w.server.id, roleId: await freshRole() }),
    unchanged: async (p) => (await ids(`/servers/${w.server.id}/roles`)).includes(p.roleId ?? ''),
  },
  {
    route: 'PUT /servers/:serverId/members/:userId/roles/:roleId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ serverId: w.server.id, userId: w.member.id, roleId: await freshRole() }),
    unchanged: async (p) => !(await rolesOf(w.member.id)).includes(p.roleId ?? ''),
  },
  {
    route: 'DELETE /servers/:serverId/members/:userId/roles/:roleId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => {
      const roleId = await freshRole();
      await ok(call(base(), 'PUT', `/servers/${w.server.id}/members/${w.member.id}/roles/${roleId}`, { auth: w.owner.auth }), 204);
      return { serverId: w.server.id, userId: w.member.id, roleId };
    },
    unchanged: async (p) => (await rolesOf(w.member.id)).includes(p.roleId ?? ''),
  },
  {
    route: 'PUT /channels/:channelId/permissions/:targetId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => ({ channelId: (await createChannel(base(), w.owner, w.server.id)).id, targetId: await sharedRole() }),
    body: () => ({ type: 'role', allow: '64', deny: '0' }),
    unchanged: async (p) => (await overwritesOf(p.channelId ?? '')).length === 0,
  },
  {
    route: 'DELETE /channels/:channelId/permissions/:targetId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => {
      const channelId = (await createChannel(base(), w.owner, w.server.id)).id;
      const targetId = await sharedRole();
      await ok(
        call(base(), 'PUT', `/channels/${channelId}/permissions/${targetId}`, { auth: w.owner.auth, body: { type: 'role', allow: '64' } }),
        204,
      );
      return { channelId, targetId };
    },
    unchanged: async (p) => (await overwritesOf(p.channelId ?? '')).length === 1,
  },
  {
    route: 'PUT /servers/:serverId/bans/:userId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => {
      const target = await registerUser(base());
      await joinServer(base(), w.owner, target, w.server.id);
      return { serverId: w.server.id, userId: target.id };
    },
    unchanged: async (p) => (await memberIds()).includes(p.userId ?? ''),
  },
  { route: 'GET /servers/:serverId/bans', okCaller: 'owner', status: only({ owner: 200 }), params: server },
  {
    route: 'DELETE /servers/:serverId/bans/:userId',
    okCaller: 'owner',
    status: only({ owner: 204 }),
    params: async () => {
      const target = await registerUser(base());
      await ok(call(base(), 'PUT', `/servers/${w.server.id}/bans/${target.id}`, { auth: w.owner.auth }), 204);
      return { serverId: w.server.id, userId: target.id };
    },
    unchanged: async (p) =>
      (await call(base(), 'GET', `/servers/${w.server.id}/bans`, { auth: w.owner.auth })).body.some(
        (b: { user: { id: string } }) => b.user.id === p.userId,
      ),
  },
  { route: 'GET /servers/:serverId/audit-log', okCaller: 'owner', status: only({ owner: 200 }), params: server },
  // Uploaded files are served to whoever has the URL, secret included: images are embedded,
  // so no credential is asked for (docs/security.md#files-are-for-those-who-may-see-them).
  {
    route: 'GET /uploads/:id/:secret/:filename',
    okCaller: 'anonymous',
    status: () => 200,
    params: async () => {
      const f = await theUpload();
      return { id: f.id, secret: f.secret, filename: f.segment };
    },
  },
  // A PDF's first page: the same URL, the same rule (whoever has it).
  {
    route: 'GET /uploads/:id/:secret/:filename/page-1.png',
    okCaller: 'anonymous',
    status: () => 200,
    params: async () => {
      const up = await upload(base(), w.owner.auth, onePagePdf('Matrix'), 'matrix.pdf', 'application/pdf');
      if (up.status !== 200) throw new Error(`upload: ${up.status} ${up.text}`);
      const [id = '', secret = '', segment = ''] = new URL(up.body.url as string).pathname.split('/').slice(2);
      return { id, secret, filename: decodeURIComponent(segment) };
    },
  },
  // The shape without the secret: nobody gets the file.
  {
    route: 'GET /uploads/:id/:filename',
    okCaller: 'anonymous',
    status: () => 404,
    params: async () => {
      const f = await theUpload();
      return { id: f.id, filename: f.segment };
    },
  },
];

// Webhook URLs: the token in the path is the only credential (docs/api.md#webhooks-through-their-url-no-authorization, docs/webhooks.md).

const HOOK_CREDS = {
  right: 'the right token',
  wrong: 'a wrong token',
  deleted: 'a deleted webhook',
  unknown: 'an unknown webhook id',
  session: "a wrong token and the owner's session",
} as const;
type HookCred = keyof typeof HOOK_CREDS;
const HOOK_CRED_KEYS = Object.keys(HOOK_CREDS) as HookCred[];

interface HookSpec {
  route: string;
  variant?: string;
  ok: number;
  /** The message the row acts on: shared, or posted by the hook for this row alone. */
  message?: 'shared' | 'fresh';
  body?: unknown;
  headers?: Record<string, string>;
  unchanged?(p: Params): Promise<boolean>;
}

async function hookParams(spec: HookSpec, cred: HookCred): Promise<{ p: Params; auth?: string }> {
  const h = cred === 'deleted' ? w.deletedHook : w.hook;
  const p: Params = {
    webhookId: cred === 'unknown' ? UNKNOWN_ID : h.id,
    token: cred === 'wrong' || cred === 'session' ? otherSecret(h.token) : h.token,
  };
  if (spec.message) {
    p.channelId = w.general.id;
    p.messageId =
      cred === 'deleted'
        ? w.deletedHookMessage.id
        : spec.message === 'fresh'
          ? (await executeHook(w.hook, 'delete me')).id
          : w.hookMessage.id;
  }
  return { p, auth: cred === 'session' ? w.owner.auth : undefined };
}

const messageStillThere = async (p: Params) =>
  (await call(base(), 'GET', `/channels/${p.channelId}/messages/${p.messageId}`, { auth: w.owner.auth })).status === 200;

const HOOK_SPECS: HookSpec[] = [
  { route: 'POST /webhooks/:webhookId/:token', ok: 200, body: { content: 'hi from a hook' } },
  { route: 'GET /webhooks/:webhookId/:token', ok: 200 },
  { route: 'POST /webhooks/:webhookId/:token/slack', ok: 200, body: { text: 'hi from Slack' } },
  {
    route: 'POST /webhooks/:webhookId/:token/github',
    variant: 'ping',
    ok: 200,
    headers: { 'x-github-event': 'ping' },
    body: { zen: 'Keep it logically awesome.', hook_id: 1 },
  },
  { route: 'GET /webhooks/:webhookId/:token/messages/:messageId', ok: 200, message: 'shared' },
  {
    route: 'PATCH /webhooks/:webhookId/:token/messages/:messageId',
    ok: 200,
    message: 'shared',
    body: { content: 'posted by the hook' },
  },
  {
    route: 'DELETE /webhooks/:webhookId/:token/messages/:messageId',
    ok: 204,
    message: 'fresh',
    unchanged: messageStillThere,
  },
];

function hookRows(spec: HookSpec): Row[] {
  const title = spec.variant ? `${spec.route} [${spec.variant}]` : spec.route;
  const run = async (cred: HookCred, override: Params = {}): Promise<Outcome> => {
    const { p: made, auth } = await hookParams(spec, cred);
    const p = { ...made, ...override };
    const { method, path } = fill(spec.route, p);
    const res = await call(base(), method, path, { auth, body: spec.body, headers: spec.headers });
    return { res, unchanged: spec.unchanged ? await spec.unchanged(made) : undefined };
  };
  const rows: Row[] = HOOK_CRED_KEYS.map((cred) => {
    const expected = cred === 'right' ? spec.ok : 404;
    return { route: spec.route, name: `${title} with ${HOOK_CREDS[cred]} → ${expected}`, expected, run: () => run(cred) };
  });
  if (spec.message) {
    for (const [label, value] of BAD_IDS) {
      rows.push({
        route: spec.route,
        name: `${title} with the right token and ${label} :messageId → 404`,
        expected: 404,
        run: () => run('right', { messageId: value }),
      });
    }
    // "Its own messages (only those it posted)": to the hook, another author's message is unknown.
    rows.push({
      route: spec.route,
      name: `${title} with the right token and a message it did not post → 404`,
      expected: 404,
      run: async () => {
        const other = await postMessage(base(), w.owner.auth, w.general.id, 'not the hook’s');
        const { res: r } = await run('right', { messageId: other.id });
        // The message at stake here is the other author's, not the one made for the row.
        return { res: r, unchanged: spec.unchanged ? await spec.unchanged({ channelId: w.general.id, messageId: other.id }) : undefined };
      },
    });
  }
  return rows;
}

// Single rows for the cases the generic table cannot express.

function single(route: string, variant: string, caller: string, expected: number, run: () => Promise<Outcome>): Row {
  return { route, name: `${route} [${variant}] as ${caller} → ${expected}`, expected, run };
}
const res = (r: Promise<Res>) => r.then((x): Outcome => ({ res: x }));

const addBotAs = (auth: string, botId: string) => call(base(), 'POST', `/servers/${w.server.id}/bots`, { auth, body: { botId } });

const EXTRAS: Row[] = [
  single('POST /servers/:serverId/bots', "someone else's bot, not public", CALLERS.owner, 403, async () => {
    const bot = await createBot(base(), w.botOwner);
    const r = await addBotAs(w.owner.auth, bot.id);
    return { res: r, unchanged: !(await memberIds()).includes(bot.id) };
  }),
  single('POST /servers/:serverId/bots', "someone else's public bot", CALLERS.owner, 201, async () => {
    const bot = await createBot(base(), w.botOwner);
    await makePublic(w.botOwner, bot);
    const r = await addBotAs(w.owner.auth, bot.id);
    return { res: r, unchanged: !(await memberIds()).includes(bot.id) };
  }),
  single('POST /servers/:serverId/bots', 'their own bot', CALLERS.member, 403, async () => {
    const bot = await createBot(base(), w.member);
    return { res: await addBotAs(w.member.auth, bot.id), unchanged: !(await memberIds()).includes(bot.id) };
  }),
  single('POST /servers/:serverId/bots', 'their own bot', CALLERS.botOwner, 403, async () => {
    const bot = await createBot(base(), w.botOwner);
    return { res: await addBotAs(w.botOwner.auth, bot.id), unchanged: !(await memberIds()).includes(bot.id) };
  }),
  single('POST /servers/:serverId/bots', 'a bot already in the server', CALLERS.owner, 409, () => res(addBotAs(w.owner.auth, w.botAll.id))),
  single('POST /servers/:serverId/bots', 'an unknown botId', CALLERS.owner, 404, () => res(addBotAs(w.owner.auth, UNKNOWN_ID))),
  single('POST /servers/:serverId/bots', "a person's id as botId", CALLERS.owner, 404, () => res(addBotAs(w.owner.auth, w.stranger.id))),
  single('POST /servers/:serverId/bots', 'a deleted bot', CALLERS.owner, 404, () => res(addBotAs(w.owner.auth, w.deletedBotId))),
  single('PATCH /servers/:serverId/bots/:botId', 'a bot not in the server', CALLERS.owner, 404, () =>
    res(call(base(), 'PATCH', `/servers/${w.server.id}/bots/${w.botOut.id}`, { auth: w.owner.auth, body: { permissions: [] } })),
  ),
  single('DELETE /servers/:serverId/bots/:botId', 'a bot not in the server', CALLERS.owner, 404, () =>
    res(call(base(), 'DELETE', `/servers/${w.server.id}/bots/${w.botOut.id}`, { auth: w.owner.auth })),
  ),
  single('DELETE /servers/:serverId/bots/:botId', "a person's id", CALLERS.owner, 404, async () => {
    const r = await call(base(), 'DELETE', `/servers/${w.server.id}/bots/${w.member.id}`, { auth: w.owner.auth });
    return { res: r, unchanged: (await memberIds()).includes(w.member.id) };
  }),
  single('DELETE /servers/:serverId/members/:userId', '@me', 'a member leaving', 204, async () => {
    const leaver = await registerUser(base());
    await joinServer(base(), w.owner, leaver, w.server.id);
    const r = await call(base(), 'DELETE', `/servers/${w.server.id}/members/@me`, { auth: leaver.auth });
    return { res: r, unchanged: (await memberIds()).includes(leaver.id) };
  }),
  // Your own nickname: CHANGE_NICKNAME, which @everyone holds and bots (who take none of its bits) lack.
  single('PATCH /servers/:serverId/members/:userId', '@me', CALLERS.member, 200, () =>
    res(call(base(), 'PATCH', `/servers/${w.server.id}/members/@me`, { auth: w.member.auth, body: { nick: 'Me myself' } })),
  ),
  single('PATCH /servers/:serverId/members/:userId', '@me', CALLERS.botNone, 403, () =>
    res(call(base(), 'PATCH', `/servers/${w.server.id}/members/@me`, { auth: w.botNone.auth, body: { nick: 'Bot self' } })),
  ),
  single('DELETE /servers/:serverId/members/:userId', '@me', CALLERS.owner, 400, () =>
    res(call(base(), 'DELETE', `/servers/${w.server.id}/members/@me`, { auth: w.owner.auth })),
  ),
  single('DELETE /servers/:serverId/members/:userId', 'a bot member (not the bots route)', CALLERS.member, 403, async () => {
    const r = await call(base(), 'DELETE', `/servers/${w.server.id}/members/${w.botNone.id}`, { auth: w.member.auth });
    return { res: r, unchanged: (await memberIds()).includes(w.botNone.id) };
  }),
  single('PATCH /channels/:channelId/messages/:messageId', 'its own message', CALLERS.botAll, 200, async () => {
    const m = await postMessage(base(), w.botAll.auth, w.general.id, 'mine');
    return res(
      call(base(), 'PATCH', `/channels/${w.general.id}/messages/${m.id}`, { auth: w.botAll.auth, body: { content: 'still mine' } }),
    );
  }),
  single('DELETE /channels/:channelId/messages/:messageId', 'its own message', CALLERS.botAll, 204, async () => {
    const m = await postMessage(base(), w.botAll.auth, w.general.id, 'mine');
    const p = { channelId: w.general.id, messageId: m.id };
    const r = await call(base(), 'DELETE', `/channels/${w.general.id}/messages/${m.id}`, { auth: w.botAll.auth });
    return { res: r, unchanged: await messageStillThere(p) };
  }),
  single('DELETE /channels/:channelId/messages/:messageId', "the server owner's message", CALLERS.botAll, 403, async () => {
    const m = await postMessage(base(), w.owner.auth, w.general.id, 'the owner’s');
    const p = { channelId: w.general.id, messageId: m.id };
    const r = await call(base(), 'DELETE', `/channels/${w.general.id}/messages/${m.id}`, { auth: w.botAll.auth });
    return { res: r, unchanged: await messageStillThere(p) };
  }),
  single('GET /channels/:channelId/messages/:messageId', 'a message of another channel', CALLERS.owner, 404, () =>
    res(call(base(), 'GET', `/channels/${w.otherChannel.id}/messages/${w.message.id}`, { auth: w.owner.auth })),
  ),
  single('PUT /channels/:channelId/messages/:messageId/reactions/:emoji', 'a message of another channel', CALLERS.owner, 404, () =>
    res(
      call(base(), 'PUT', `/channels/${w.otherChannel.id}/messages/${w.message.id}/reactions/${encodeURIComponent('👍')}`, {
        auth: w.owner.auth,
      }),
    ),
  ),
  single('PATCH /webhooks/:webhookId', 'a deleted webhook', CALLERS.owner, 404, () =>
    res(call(base(), 'PATCH', `/webhooks/${w.deletedHook.id}`, { auth: w.owner.auth, body: { name: 'Back' } })),
  ),
  single('DELETE /webhooks/:webhookId', 'a deleted webhook', CALLERS.owner, 404, () =>
    res(call(base(), 'DELETE', `/webhooks/${w.deletedHook.id}`, { auth: w.owner.auth })),
  ),
  single('DELETE /bots/:botId', "a person's id", CALLERS.botOwner, 404, () =>
    res(call(base(), 'DELETE', `/bots/${w.botOwner.id}`, { auth: w.botOwner.auth })),
  ),
  single('DELETE /bots/:botId', 'a deleted bot', CALLERS.owner, 404, () =>
    res(call(base(), 'DELETE', `/bots/${w.deletedBotId}`, { auth: w.owner.auth })),
  ),
  single('POST /invites/:code', 'a deleted invite', CALLERS.stranger, 404, async () => {
    const code = await freshInvite(w.joinable.id);
    const d = await call(base(), 'DELETE', `/invites/${code}`, { auth: w.owner.auth });
    if (d.status !== 204) throw new Error(`delete invite: ${d.status} ${d.text}`);
    return res(call(base(), 'POST', `/invites/${code}`, { auth: w.stranger.auth }));
  }),
  // User and message commands, and modals (docs/commands.md): the same route, other bodies.
  single('POST /channels/:channelId/interactions', 'a message command on a message of the channel', CALLERS.owner, 202, async () => {
    const cmd = await call(base(), 'POST', `/bots/${w.botAll.id}/commands`, {
      auth: w.botAll.auth,
      body: { type: 'message', name: 'Matrix Quote' },
    });
    if (cmd.status >= 300) throw new Error(`command: ${cmd.status} ${cmd.text}`);
    const m = await call(base(), 'POST', `/channels/${w.general.id}/messages`, { auth: w.member.auth, body: { content: 'quote me' } });
    return res(
      call(base(), 'POST', `/channels/${w.general.id}/interactions`, {
        auth: w.owner.auth,
        body: { type: 'command', botId: w.botAll.id, name: 'Matrix Quote', commandType: 'message', targetId: m.body.id },
      }),
    );
  }),
  ...(['owner', 'member'] as const).map((who) =>
    single(
      'POST /channels/:channelId/interactions',
      "a modal submit of the owner's interaction",
      CALLERS[who],
      who === 'owner' ? 202 : 403,
      async () => {
        const i = await freshInteraction(false);
        const modal = {
          customId: 'm',
          title: 'M',
          components: [{ type: 'row', components: [{ type: 'textInput', customId: 'a', style: 'short', label: 'A' }] }],
        };
        const cb = await call(base(), 'POST', `/interactions/${i.id}/${i.token}/callback`, { body: { type: 'modal', data: { modal } } });
        if (cb.status !== 204) throw new Error(`callback: ${cb.status} ${cb.text}`);
        return res(
          call(base(), 'POST', `/channels/${w.general.id}/interactions`, {
            auth: w[who].auth,
            body: { type: 'modalSubmit', interactionId: i.id, customId: 'm', fields: [{ customId: 'a', value: 'x' }] },
          }),
        );
      },
    ),
  ),
];

// Interactions' token routes (docs/commands.md): the token is the credential, whoever else calls.

/** A fresh interaction of botAll's, as its gateway session receives it; acknowledged with a message when `answered`. */
async function freshInteraction(answered: boolean): Promise<{ id: string; token: string }> {
  const gw = await interactionPool.identify(srv.gatewayUrl, w.botAll.auth);
  const r = await call(base(), 'POST', `/channels/${w.general.id}/interactions`, {
    auth: w.owner.auth,
    body: { type: 'command', botId: w.botAll.id, name: 'matrix' },
  });
  if (r.status !== 202) throw new Error(`invoke: ${r.status} ${r.text}`);
  const i = (await gw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d as { id: string; token: string };
  await gw.close();
  if (answered) {
    const cb = await call(base(), 'POST', `/interactions/${i.id}/${i.token}/callback`, {
      body: { type: 'message', data: { content: 'matrix' } },
    });
    if (cb.status !== 204) throw new Error(`callback: ${cb.status} ${cb.text}`);
  }
  return i;
}
const interactionPool = new ClientPool();

/** A new global command of botAll (by the bot itself), for the one-command rows; its id. */
async function freshCommand(): Promise<string> {
  const r = await call(base(), 'POST', `/bots/${w.botAll.id}/commands`, {
    auth: w.botAll.auth,
    body: { name: `one-${Math.random().toString(36).slice(2, 10)}`, description: 'M' },
  });
  if (r.status !== 201) throw new Error(`command: ${r.status} ${r.text}`);
  return r.body.id;
}

interface TokenSpec {
  route: string;
  ok: number;
  answered: boolean;
  body?: unknown;
  /** The route names a message: a follow-up the interaction posted (with its right token). */
  followUp?: boolean;
}
const TOKEN_SPECS: TokenSpec[] = [
  {
    route: 'POST /interactions/:interactionId/:token/callback',
    ok: 204,
    answered: false,
    body: { type: 'message', data: { content: 'x' } },
  },
  { route: 'POST /interactions/:token/followups', ok: 200, answered: true, body: { content: 'more' } },
  { route: 'GET /interactions/:token/messages/original', ok: 200, answered: true },
  { route: 'PATCH /interactions/:token/messages/original', ok: 200, answered: true, body: { content: 'edited' } },
  { route: 'DELETE /interactions/:token/messages/original', ok: 204, answered: true },
  { route: 'GET /interactions/:token/messages/:messageId', ok: 200, answered: true, followUp: true },
  { route: 'PATCH /interactions/:token/messages/:messageId', ok: 200, answered: true, followUp: true, body: { content: 'edited' } },
  { route: 'DELETE /interactions/:token/messages/:messageId', ok: 204, answered: true, followUp: true },
];

function tokenRows(spec: TokenSpec): Row[] {
  const variants: Array<[string, number, (i: { id: string; token: string }) => Params]> = [
    ['the right token', spec.ok, (i) => ({ interactionId: i.id, token: i.token })],
    ['a wrong secret', 404, (i) => ({ interactionId: i.id, token: wrongSecret(i.token) })],
    ['an unknown id', 404, (i) => ({ interactionId: UNKNOWN_ID, token: `${UNKNOWN_ID}.${i.token.split('.')[1]}` })],
    ['a malformed token', 404, (i) => ({ interactionId: i.id, token: 'not-a-token' })],
  ];
  return variants.map(([label, expected, params]) => ({
    route: spec.route,
    name: `${spec.route} with ${label} (as anyone) → ${expected}`,
    expected,
    run: async () => {
      const i = await freshInteraction(spec.answered);
      let messageId: string | undefined;
      if (spec.followUp) {
        const f = await call(base(), 'POST', `/interactions/${i.token}/followups`, { body: { content: 'follow' } });
        if (f.status !== 200) throw new Error(`follow-up: ${f.status} ${f.text}`);
        messageId = f.body.id;
      }
      const { method, path } = fill(spec.route, { ...params(i), ...(messageId ? { messageId } : {}) });
      return { res: await call(base(), method, path, { body: spec.body }) };
    },
  }));
}

const ROWS: Row[] = [...SPECS.flatMap(rowsOf), ...HOOK_SPECS.flatMap(hookRows), ...EXTRAS, ...TOKEN_SPECS.flatMap(tokenRows)];

// ---------------------------------------------------------------------------------------
// Registered routes

/** "METHOD /path" from an entry of an App.routes list, whatever shape it takes. */
function routeNamesOf(entry: unknown): string[] {
  if (typeof entry === 'string') {
    const m = /^([A-Z,| ]+?)\s+(\/\S*)$/.exec(entry.trim());
    return m
      ? (m[1] ?? '')
          .split(/[,| ]+/)
          .filter(Boolean)
          .map((method) => `${method} ${m[2]}`)
      : [];
  }
  if (entry && typeof entry === 'object') {
    const e = entry as Record<string, unknown>;
    const path = e.url ?? e.path;
    const methods = Array.isArray(e.method) ? e.method : Array.isArray(e.methods) ? e.methods : [e.method];
    if (typeof path !== 'string') return [];
    return methods.filter((m): m is string => typeof m === 'string').map((m) => `${m.toUpperCase()} ${path}`);
  }
  return [];
}

/** Fastify's printRoutes tree: each level indents by four characters and extends its parent's path. */
function parseRouteTree(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?\s*$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    const path = (depth > 0 ? (stack[depth - 1] ?? '') : '') + (m[2] ?? '');
    stack.length = depth;
    stack.push(path);
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      out.push(`${method} ${path}`);
  }
  return out;
}

function registeredRoutes(): string[] {
  const listed = (srv.app as unknown as { routes?: unknown }).routes;
  const all = Array.isArray(listed) ? listed.flatMap(routeNamesOf) : parseRouteTree(srv.app.app.printRoutes({ commonPrefix: false }));
  // Fastify adds HEAD for every GET; `{param}` spelling is folded into Fastify's `:param`.
  return [...new Set(all.filter((r) => !r.startsWith('HEAD ')).map((r) => r.replace(/\{(\w+)\}/g, ':$1')))];
}

// ---------------------------------------------------------------------------------------
// Tests

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await buildWorld();
});
afterAll(async () => {
  await interactionPool.closeAll();
  await srv?.close();
});

async function checkRow(row: Row): Promise<void> {
  const { res: r, unchanged } = await row.run();
  expect(r.status, `${r.status} ${r.text.slice(0, 300)}`).toBe(row.expected);
  if (row.expected >= 400) {
    expect(typeof (r.body as { error?: unknown } | undefined)?.error, 'an { error } body').toBe('string');
    // A refusal names its rule: a catalog code of this status, and for 404 always an unknown_* thing.
    const code = (r.body as { code?: unknown } | undefined)?.code;
    expectCatalogCode(code, row.expected);
    if (row.expected === 404) expect(code).toMatch(/^unknown_/);
  }
  if (unchanged !== undefined) {
    expect(unchanged, row.expected >= 400 ? 'a refused request must change nothing' : 'the request must take effect').toBe(
      row.expected >= 400,
    );
  }
}

describe('permission matrix', () => {
  // A plain loop rather than it.each: it.each shortens long interpolated names, and a
  // failing row must name its route and caller in full.
  for (const row of ROWS) it(row.name, () => checkRow(row));

  it('has rows for every registered route with a path parameter', () => {
    const registered = registeredRoutes();
    // The route list is read correctly: a route every build has is in it.
    expect(registered).toContain('GET /servers/:serverId');
    const covered = new Set(ROWS.map((r) => r.route));
    // Discord's routes under /api answer Discord's bodies: test/discord/permissions.test.ts is their matrix.
    const missing = registered.filter((r) => r.includes(':') && !r.includes(' /api/') && !covered.has(r));
    expect(missing, 'routes with a path parameter but no rows in the permission matrix').toEqual([]);
  });
});

describe('gateway: events stay inside their server', () => {
  const pool = new ClientPool();
  afterEach(() => pool.closeAll());

  /** Causes one event of every kind in `serverId`, the last a message; returns that message's id. */
  async function stirServer(owner: TestUser, serverId: string, channelId: string): Promise<string> {
    const url = base();
    const m = await postMessage(url, owner.auth, channelId, 'meant for this server only');
    await call(url, 'PATCH', `/channels/${channelId}/messages/${m.id}`, { auth: owner.auth, body: { content: 'edited' } });
    await call(url, 'PUT', `/channels/${channelId}/messages/${m.id}/reactions/${encodeURIComponent('👍')}`, { auth: owner.auth });
    await call(url, 'POST', `/channels/${channelId}/typing`, { auth: owner.auth });
    const ch = await createChannel(url, owner, serverId);
    await call(url, 'PATCH', `/channels/${ch.id}`, { auth: owner.auth, body: { name: 'renamed' } });
    await call(url, 'DELETE', `/channels/${ch.id}`, { auth: owner.auth });
    await call(url, 'PATCH', `/servers/${serverId}`, { auth: owner.auth, body: { name: 'Renamed' } });
    const joiner = await registerUser(url);
    await joinServer(url, owner, joiner, serverId);
    await call(url, 'DELETE', `/servers/${serverId}/members/${joiner.id}`, { auth: owner.auth });
    await call(url, 'DELETE', `/channels/${channelId}/messages/${m.id}`, { auth: owner.auth });
    const hook = await createWebhook(url, owner, serverId, channelId);
    return (await executeHook(hook, 'last word')).id;
  }

  /** Events of `c` (from frame index `from`) that name `serverId`, whatever their type. */
  const leaked = (c: TestGatewayClient, serverId: string, from = 0) =>
    c.frames.slice(from).filter((f) => f.op === 'event' && JSON.stringify(f.d ?? null).includes(serverId));

  it('a person and a bot of server A receive A’s message and nothing of server B', async () => {
    const url = base();
    const [ownerA, ownerB, person] = await Promise.all([registerUser(url), registerUser(url), registerUser(url)]);
    const { server: a, general: chA } = await createServer(url, ownerA, 'A');
    const { server: b, general: chB } = await createServer(url, ownerB, 'B');
    await joinServer(url, ownerA, person, a.id);
    const bot = await createBot(url, ownerA);
    await addBot(url, ownerA, a.id, bot.id);

    const p = await pool.identify(srv.gatewayUrl, person.auth);
    const bc = await pool.identify(srv.gatewayUrl, bot.auth);
    const insider = await pool.identify(srv.gatewayUrl, ownerB.auth);
    expect(p.ready?.servers.map((s: { id: string }) => s.id)).toEqual([a.id]);
    expect(bc.ready?.servers.map((s: { id: string }) => s.id)).toEqual([a.id]);

    const lastInB = await stirServer(ownerB, b.id, chB.id);
    // B's events do flow: its owner sees them, so silence below is not a dead gateway.
    await insider.waitForEvent('MESSAGE_CREATE', (d) => d.id === lastInB);

    const inA = await postMessage(url, ownerA.auth, chA.id, 'hello A');
    for (const c of [p, bc]) {
      // One session's events arrive in order, so B's would have come before A's message.
      await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === inA.id);
      expect(leaked(c, b.id)).toEqual([]);
    }
  });

  it('once a person leaves B and a bot is removed from it, B’s events stop reaching them', async () => {
    const url = base();
    const [ownerA, ownerB, person] = await Promise.all([registerUser(url), registerUser(url), registerUser(url)]);
    const { server: a, general: chA } = await createServer(url, ownerA, 'A');
    const { server: b, general: chB } = await createServer(url, ownerB, 'B');
    await joinServer(url, ownerA, person, a.id);
    await joinServer(url, ownerB, person, b.id);
    const bot = await createBot(url, ownerA);
    await makePublic(ownerA, bot);
    await addBot(url, ownerA, a.id, bot.id);
    await addBot(url, ownerB, b.id, bot.id);

    const p = await pool.identify(srv.gatewayUrl, person.auth);
    const bc = await pool.identify(srv.gatewayUrl, bot.auth);
    const before = await postMessage(url, ownerB.auth, chB.id, 'while they are members');
    for (const c of [p, bc]) await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === before.id);

    const left = await call(url, 'DELETE', `/servers/${b.id}/members/@me`, { auth: person.auth });
    expect(left.status, left.text).toBe(204);
    const removed = await call(url, 'DELETE', `/servers/${b.id}/bots/${bot.id}`, { auth: ownerB.auth });
    expect(removed.status, removed.text).toBe(204);
    const marks = new Map([p, bc].map((c) => [c, c.frames.length]));

    await stirServer(ownerB, b.id, chB.id);
    const inA = await postMessage(url, ownerA.auth, chA.id, 'hello A');
    for (const [c, from] of marks) {
      await c.waitForEvent('MESSAGE_CREATE', (d) => d.id === inA.id);
      // Their own removal may still be on its way; anything else of B must not be.
      const self = c === p ? person.id : bot.id;
      const rest = leaked(c, b.id, from).filter((f) => !(f.t === 'MEMBER_REMOVE' && f.d?.user?.id === self));
      expect(rest).toEqual([]);
    }
  });
});
