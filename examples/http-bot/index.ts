/**
 * The HTTP bot: answers slash commands over HTTP, with no gateway connection.
 *
 *   PARLEY_URL=http://localhost:8080 PARLEY_TOKEN=<bot token> PARLEY_PUBLIC_KEY=<hex> PORT=3000 \
 *     npx tsx --conditions=development examples/http-bot/index.ts
 *
 * Then set the bot's interactionsUrl to this endpoint (see README.md).
 */
import { pathToFileURL } from 'node:url';
import { startHttpBot } from './bot.js';

export { httpBotRouter, startHttpBot, type HttpBotOptions } from './bot.js';

async function main(): Promise<void> {
  const token = process.env.PARLEY_TOKEN;
  const publicKey = process.env.PARLEY_PUBLIC_KEY;
  if (!token || !publicKey) {
    console.error('Set PARLEY_TOKEN and PARLEY_PUBLIC_KEY (see examples/http-bot/README.md).');
    process.exitCode = 1;
    return;
  }
  const bot = await startHttpBot({
    baseUrl: process.env.PARLEY_URL ?? 'http://localhost:8080',
    token,
    publicKey,
    port: Number(process.env.PORT ?? 3000),
    host: process.env.HOST ?? '127.0.0.1',
  });
  console.log(`[http-bot] commands registered; answering interactions at ${bot.url}`);
  const stop = () => void bot.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error('[http-bot] failed to start:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
