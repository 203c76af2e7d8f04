import { randomInt } from 'node:crypto';
import { ParleyBot, button, type Message, type ParleyBotOptions, type RestClient, row } from '@parley/sdk';

/** Options of the ping bot's command handling. */
export interface PingBotOptions {
  /** How long `!slow` "thinks" before answering, in ms (default 3000). */
  slowDelayMs?: number;
}

/** Dice bounds: enough for any tabletop roll, small enough for one message. */
export const MAX_DICE = 100;
export const MAX_SIDES = 1000;

const HELP = [
  '**Ping bot commands**',
  '`!ping`: answers pong',
  `\`!roll NdM\`: rolls N dice with M sides (1-${MAX_DICE} dice, 2-${MAX_SIDES} sides), e.g. \`!roll 2d6\``,
  '`!react`: reacts 👍 to your message',
  '`!slow`: shows typing, then answers',
  '`!file`: uploads a small text file',
  '`/roll`: the slash command, with a "Roll again" button',
].join('\n');

/**
 * Answers one message if it is a command; returns the bot's reply (if it sent one).
 * Messages from bots (itself included) and webhooks are ignored, so bots cannot loop.
 */
export async function handleCommand(rest: RestClient, message: Message, options: PingBotOptions = {}): Promise<Message | undefined> {
  if (message.author.bot) return undefined;
  const text = message.content.trim();
  if (!text.startsWith('!')) return undefined;
  const [command = '', ...args] = text.slice(1).split(/\s+/);
  const channelId = message.channelId;

  switch (command.toLowerCase()) {
    case 'ping':
      return rest.sendMessage(channelId, 'pong');

    case 'roll':
      return rest.sendMessage(channelId, rollReply(args[0] ?? '1d6'));

    case 'react':
      await rest.toggleReaction(channelId, message.id, '👍');
      return undefined;

    case 'slow':
      return withTyping(rest, channelId, async () => {
        await delay(options.slowDelayMs ?? 3000);
        return rest.sendMessage(channelId, 'Sorry for the wait: that took a while to think about.');
      });

    case 'file': {
      const body = `Hello from the ping bot!\nGenerated at ${new Date().toISOString()}.\n`;
      const upload = await rest.upload(Buffer.from(body, 'utf8'), 'hello.txt', 'text/plain');
      return rest.sendMessage(channelId, {
        content: 'Here is your file:',
        attachments: [{ url: upload.url, filename: upload.filename }],
      });
    }

    case 'help':
      return rest.sendMessage(channelId, HELP);

    default:
      return undefined; // not our command: stay quiet
  }
}

/** Result of a parsed `NdM` roll. */
export interface DiceRoll {
  count: number;
  sides: number;
  rolls: number[];
  total: number;
}

/** Parses `NdM` (N optional) within bounds; returns an error text when invalid. */
export function parseDice(spec: string): { count: number; sides: number } | { error: string } {
  const match = /^(\d{0,4})d(\d{1,5})$/i.exec(spec.trim());
  if (!match) return { error: `\`${spec.slice(0, 20)}\` is not dice. Usage: \`!roll NdM\`, e.g. \`!roll 2d6\`` };
  const count = match[1] ? Number(match[1]) : 1;
  const sides = Number(match[2]);
  if (count < 1 || count > MAX_DICE) return { error: `Roll between 1 and ${MAX_DICE} dice.` };
  if (sides < 2 || sides > MAX_SIDES) return { error: `Dice need between 2 and ${MAX_SIDES} sides.` };
  return { count, sides };
}

/** Rolls `count` dice of `sides` sides with a cryptographic RNG. */
export function rollDice(count: number, sides: number): DiceRoll {
  const rolls = Array.from({ length: count }, () => randomInt(1, sides + 1));
  return { count, sides, rolls, total: rolls.reduce((sum, roll) => sum + roll, 0) };
}

function rollReply(spec: string): string {
  const parsed = parseDice(spec);
  if ('error' in parsed) return parsed.error;
  const { count, sides, rolls, total } = rollDice(parsed.count, parsed.sides);
  const label = `${count}d${sides}`;
  return count === 1 ? `🎲 ${label}: **${total}**` : `🎲 ${label}: ${rolls.join(' + ')} = **${total}**`;
}

/** Runs `work` while showing "typing…", renewed every 4 s (an indicator lasts a few seconds). */
async function withTyping<T>(rest: RestClient, channelId: string, work: () => Promise<T>): Promise<T> {
  await rest.typing(channelId);
  const renew = setInterval(() => {
    rest.typing(channelId).catch(() => undefined); // cosmetic: a lost indicator is fine
  }, 4000);
  try {
    return await work();
  } finally {
    clearInterval(renew);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Creates the ping bot, wires its commands and connects it; resolves once it is ready.
 * Tests start it in-process with this and stop it with `bot.close()`.
 */
export async function startPingBot(options: ParleyBotOptions & PingBotOptions): Promise<ParleyBot> {
  const bot = new ParleyBot(options);
  bot.on('messageCreate', async (message) => {
    if (message.author.id === bot.user?.id) return;
    await handleCommand(bot.rest, message, options);
  });
  addSlashCommands(bot);
  // Registers /roll (one bulk overwrite of the bot's global commands), then listens.
  await bot.connect();
  return bot;
}

/**
 * `/roll dice? sides?` answers with the roll and a "Roll again" button; a click on it rolls
 * the same dice again and updates that message. The button's customId carries the dice
 * (`roll:2d6`), so the bot keeps no state between the two.
 */
export function addSlashCommands(bot: ParleyBot): void {
  bot.command(
    'roll',
    {
      description: 'Roll dice',
      options: [
        { type: 'integer', name: 'sides', description: 'Sides of each die (default 6)', minValue: 2, maxValue: MAX_SIDES },
        { type: 'integer', name: 'dice', description: 'How many dice (default 1)', minValue: 1, maxValue: MAX_DICE },
      ],
    },
    async (interaction) => {
      const spec = `${interaction.option<number>('dice') ?? 1}d${interaction.option<number>('sides') ?? 6}`;
      await interaction.reply(rollMessage(spec));
    },
  );
  bot.component('roll:', async (interaction) => {
    await interaction.update(rollMessage(interaction.customId!.slice('roll:'.length)));
  });
}

/** A roll's answer: the result and a button to roll the same dice again. */
function rollMessage(spec: string) {
  return { content: rollReply(spec), components: [row(button({ customId: `roll:${spec}`, label: 'Roll again', emoji: '🎲' }))] };
}
