/** discord.js clients against the test service: log in, and wait for an event. */
import { Client, Events, GatewayIntentBits } from 'discord.js';
import type { TestServer } from '../harness.js';

export const DJS_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMembers,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
];

/** A discord.js client logged in with `token` once `ready` fired; the caller destroys it (`clients`). */
export async function login(srv: TestServer, clients: Client[], token: string, intents = DJS_INTENTS): Promise<Client> {
  const client = new Client({ intents, rest: { api: `${srv.url}/api` } });
  clients.push(client);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(token);
  await ready;
  return client;
}

/** The first `event` emitted by `client` whose arguments satisfy `pred`. */
export function next<T extends unknown[]>(
  client: Client,
  event: string,
  pred: (...args: T) => boolean = () => true,
  timeoutMs = 5000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      client.off(event, on);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (...args: unknown[]) => {
      if (!pred(...(args as T))) return;
      clearTimeout(t);
      client.off(event, on);
      resolve(args as T);
    };
    client.on(event, on);
  });
}
