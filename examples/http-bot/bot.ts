import { randomInt } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InteractionRouter, RestClient, button, row } from '@parley/sdk';
import { createInteractionsHandler } from '@parley/sdk/http';

/**
 * A bot with no gateway connection: Parley POSTs each interaction to its HTTP endpoint,
 * signed with Ed25519, and the endpoint's answer is the bot's reply. It suits serverless
 * platforms, where nothing stays connected between requests.
 */

export interface HttpBotOptions {
  /** Parley's base URL, for registering the commands and for follow-ups. */
  baseUrl: string;
  /** The bot's token (to register its commands). */
  token: string;
  /** The bot's public key (hex), as `GET /bots` shows it to its owner. */
  publicKey: string;
  /** Port to listen on (0: any free one). */
  port?: number;
  host?: string;
}

/** The bot's commands and buttons. */
export function httpBotRouter(): InteractionRouter {
  return new InteractionRouter()
    .command(
      'roll',
      {
        description: 'Roll a die',
        options: [{ type: 'integer', name: 'sides', description: 'Sides (default 6)', minValue: 2, maxValue: 1000 }],
      },
      (i) => i.reply(roll(i.option<number>('sides') ?? 6)),
    )
    .command(
      'echo',
      {
        description: 'Say something back, to you alone',
        options: [{ type: 'string', name: 'text', description: 'What to say', required: true, maxLength: 200 }],
      },
      (i) => i.reply({ content: `You said: ${i.option<string>('text')}`, ephemeral: true }),
    )
    .command(
      'fruit',
      {
        description: 'Pick a fruit',
        options: [{ type: 'string', name: 'name', description: 'Which fruit', required: true, autocomplete: true }],
        autocomplete: (i) =>
          FRUITS.filter((f) => f.startsWith(String(i.option('name') ?? '').toLowerCase()))
            .slice(0, 25)
            .map((f) => ({ name: f, value: f })),
      },
      (i) => i.reply(`🍽️ ${i.option<string>('name')}`),
    )
    .component('roll:', (i) => i.update(roll(Number(i.customId!.slice('roll:'.length)))));
}

const FRUITS = ['apple', 'apricot', 'banana', 'blueberry', 'cherry', 'grape', 'lemon', 'mango', 'orange', 'peach', 'pear', 'plum'];

function roll(sides: number) {
  return {
    content: `🎲 d${sides}: **${randomInt(1, sides + 1)}**`,
    components: [row(button({ customId: `roll:${sides}`, label: 'Roll again', style: 'secondary' }))],
  };
}

/** Registers the commands, then serves the endpoint; resolves with its URL and a way to stop it. */
export async function startHttpBot(options: HttpBotOptions): Promise<{ url: string; close(): Promise<void> }> {
  const rest = new RestClient({ baseUrl: options.baseUrl, token: options.token });
  const router = httpBotRouter();
  const me = await rest.me();
  await router.register(rest, me.id);
  const server = http.createServer(createInteractionsHandler({ publicKey: options.publicKey, router, rest }));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
