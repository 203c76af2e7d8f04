/** Helpers that drive a real server over HTTP, for tests. */

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** One HTTP call; `auth` is the full Authorization value ("Bot x" / "Bearer y"). */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { auth?: string; body?: unknown; headers?: Record<string, string>; raw?: RequestInit['body'] } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.authorization = opts.auth;
  let body: RequestInit['body'] = opts.raw;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.body);
  }
  const r = await fetch(base + path, { method, headers, body });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: r.status, body: parsed as T, headers: r.headers, text };
}

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

export interface TestUser {
  id: string;
  name: string;
  token: string;
  auth: string;
}

export async function registerUser(base: string, username = unique('u')): Promise<TestUser> {
  const r = await call(base, 'POST', '/auth/register', { body: { username, password: 'correct horse battery' } });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text}`);
  return { id: r.body.user.id, name: r.body.user.name, token: r.body.token, auth: `Bearer ${r.body.token}` };
}

export async function createServer(base: string, owner: TestUser, name = 'Test server') {
  const r = await call(base, 'POST', '/servers', { auth: owner.auth, body: { name } });
  if (r.status !== 201) throw new Error(`create server failed: ${r.status} ${r.text}`);
  const channels = await call(base, 'GET', `/servers/${r.body.id}/channels`, { auth: owner.auth });
  return { server: r.body as { id: string; name: string; ownerId: string }, general: channels.body[0] as { id: string; name: string } };
}

export async function createChannel(base: string, owner: TestUser, serverId: string, name = unique('c')) {
  const r = await call(base, 'POST', `/servers/${serverId}/channels`, { auth: owner.auth, body: { name } });
  if (r.status !== 201) throw new Error(`create channel failed: ${r.status} ${r.text}`);
  return r.body as { id: string; serverId: string; name: string };
}

export interface TestBot {
  id: string;
  name: string;
  token: string;
  auth: string;
}

export async function createBot(base: string, owner: TestUser, name = unique('bot')): Promise<TestBot> {
  const r = await call(base, 'POST', '/bots', { auth: owner.auth, body: { name } });
  if (r.status !== 201) throw new Error(`create bot failed: ${r.status} ${r.text}`);
  return { id: r.body.id, name: r.body.name, token: r.body.token, auth: `Bot ${r.body.token}` };
}

export async function addBot(base: string, owner: TestUser, serverId: string, botId: string, permissions?: string[]) {
  const r = await call(base, 'POST', `/servers/${serverId}/bots`, {
    auth: owner.auth,
    body: { botId, ...(permissions ? { permissions } : {}) },
  });
  if (r.status !== 201) throw new Error(`add bot failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Joins `user` to the server through a fresh invite. */
export async function joinServer(base: string, owner: TestUser, user: TestUser, serverId: string) {
  const inv = await call(base, 'POST', `/servers/${serverId}/invites`, { auth: owner.auth });
  const r = await call(base, 'POST', `/invites/${inv.body.code}`, { auth: user.auth });
  if (r.status !== 200) throw new Error(`join failed: ${r.status} ${r.text}`);
}

export async function createWebhook(base: string, owner: TestUser, serverId: string, channelId: string, name = 'Hook') {
  const r = await call(base, 'POST', `/servers/${serverId}/webhooks`, { auth: owner.auth, body: { name, channelId } });
  if (r.status !== 201) throw new Error(`create webhook failed: ${r.status} ${r.text}`);
  return r.body as { id: string; token: string; url: string; name: string; channelId: string; serverId: string };
}

export async function postMessage(base: string, auth: string, channelId: string, content: string) {
  const r = await call(base, 'POST', `/channels/${channelId}/messages`, { auth, body: { content } });
  if (r.status !== 201) throw new Error(`post failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Uploads bytes as multipart field `file`. */
export async function upload(base: string, auth: string, bytes: Uint8Array | string, filename: string, type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)], { type }), filename);
  return call(base, 'POST', '/upload', { auth, raw: form });
}

/** A owner, a server with its general channel, and a bot member: the usual starting point. */
export async function world(base: string, botPermissions?: string[]) {
  const owner = await registerUser(base);
  const { server, general } = await createServer(base, owner);
  const bot = await createBot(base, owner);
  await addBot(base, owner, server.id, bot.id, botPermissions);
  return { owner, server, channel: general, bot };
}
