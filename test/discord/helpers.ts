/** Connecting `TestGatewayClient` to Discord's gateway (`/api/gateway/ws`), for the Discord suites. */
import type { TestServer } from '../harness.js';
import type { ClientPool, ConnectOptions, TestGatewayClient } from '../gateway/client.js';

/** Discord's intents the suites use. */
export const I = { GUILDS: 1, GUILD_MEMBERS: 2, GUILD_MESSAGES: 1 << 9, GUILD_MESSAGE_TYPING: 1 << 11, MESSAGE_CONTENT: 1 << 15 };
export const ALL_MESSAGES = I.GUILDS | I.GUILD_MEMBERS | I.GUILD_MESSAGES | I.MESSAGE_CONTENT;

export const discordGatewayUrl = (s: TestServer, query = '?v=10&encoding=json') => `${s.url.replace('http', 'ws')}/api/gateway/ws${query}`;

/** Connects to Discord's gateway and waits for hello. */
export function connectDiscord(pool: ClientPool, s: TestServer, query?: string, opts: ConnectOptions = {}): Promise<TestGatewayClient> {
  return pool.connect(discordGatewayUrl(s, query), { ...opts, discord: opts.discord ?? {} });
}

/** Connects and identifies a bot (its bare token, as libraries send it); resolves once READY and its `guilds` GUILD_CREATEs arrived. */
export async function identifyDiscord(
  pool: ClientPool,
  s: TestServer,
  token: string,
  intents: number,
  opts: { query?: string; guilds?: number } = {},
): Promise<TestGatewayClient> {
  const c = await connectDiscord(pool, s, opts.query, opts.query?.includes('zlib') ? { discord: { zlib: true } } : {});
  c.send({ op: 2, d: { token, intents, properties: { os: 'linux', browser: 'test', device: 'test' } } });
  await c.waitForEvent('READY');
  await c.collect(1 + (opts.guilds ?? 1));
  return c;
}
