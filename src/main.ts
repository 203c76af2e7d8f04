import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const { app, ctx, close } = await buildApp(config);
  // The bound address, which with PORT=0 only the listener knows (and is what a process
  // that started this one reads to reach it when PUBLIC_URL names a load balancer).
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(`Parley listening on ${ctx.publicUrl} (database: ${config.databaseUrl ? 'postgresql' : 'sqlite'})`);
  console.log(`Parley is running at ${ctx.publicUrl} (listening on ${address})`);

  let stopping = false;
  let exitCode = 0;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal}: shutting down`);
    const timer = setTimeout(
      () => {
        app.log.error('shutdown grace period passed; exiting');
        process.exit(1);
      },
      config.shutdownGraceSeconds * 1000 + 5000,
    );
    timer.unref();
    close().then(
      () => process.exit(exitCode),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // A promise nobody awaited failed (background work is owned and reported, so this is a
  // bug): reported through the scrubbing logger, and the service keeps serving, since
  // every write it acknowledged is already durable (docs/security.md, "Failures").
  process.on('unhandledRejection', (err) => ctx.report(err, 'unhandled promise rejection'));
  // A thrown error nobody caught leaves state unknown: logged, then a clean shutdown, exit 1.
  process.on('uncaughtException', (err) => {
    app.log.fatal({ err }, 'uncaught exception; shutting down');
    exitCode = 1;
    stop('uncaughtException');
  });
}

main().catch((err) => {
  console.error('Parley failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
