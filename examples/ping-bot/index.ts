/**
 * The ping bot: a small Parley bot showing the SDK's REST calls and gateway events.
 *
 *   PARLEY_URL=http://localhost:8080 PARLEY_TOKEN=<bot token> \
 *     npx tsx --conditions=development examples/ping-bot/index.ts
 *
 * Commands: !ping, !roll NdM, !react, !slow, !file, !help, and the slash command /roll with
 * its "Roll again" button (see bot.ts).
 */
import { pathToFileURL } from 'node:url';
import { startPingBot } from './bot.js';

export {
  MAX_DICE,
  MAX_SIDES,
  addSlashCommands,
  handleCommand,
  parseDice,
  rollDice,
  startPingBot,
  type DiceRoll,
  type PingBotOptions,
} from './bot.js';

async function main(): Promise<void> {
  const baseUrl = process.env.PARLEY_URL ?? 'http://localhost:8080';
  const token = process.env.PARLEY_TOKEN;
  if (!token) {
    console.error('Set PARLEY_TOKEN to the bot token (see examples/ping-bot/README.md).');
    process.exitCode = 1;
    return;
  }

  const bot = await startPingBot({ baseUrl, token });
  bot.on('error', (error) => console.error('[ping-bot]', error.message));
  bot.on('close', ({ code, reconnecting }) => {
    console.log(`[ping-bot] connection closed (${code})${reconnecting ? ', reconnecting…' : ''}`);
  });
  bot.on('resumed', () => console.log('[ping-bot] resumed; missed messages were replayed'));
  bot.on('ready', () => console.log('[ping-bot] new session (the old one could not be resumed)'));
  const servers = bot.servers.map((server) => server.name).join(', ') || 'no servers yet';
  console.log(`[ping-bot] logged in as ${bot.user?.name} (${servers}); try !ping`);

  const stop = () => {
    console.log('[ping-bot] shutting down');
    bot.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Run only when executed directly, so tests can import the exports above.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error('[ping-bot] failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
