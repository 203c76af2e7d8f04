import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from '../config.js';
import type { Store } from '../store/index.js';
import { CliFailure } from './failure.js';

// The store and the domain are imported by the commands that use them, so `--help` and
// usage errors answer without loading the whole service.

/** Exit codes, as docs/deploy.md lists them. */
export const EXIT = { ok: 0, failure: 1, usage: 2, postgres: 3 } as const;

/** A wrong invocation: its message and the help of the command it concerns (exit 2). */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

const ENVIRONMENT = `Configuration comes from the same environment as the service: DATA_DIR (default ./data),
UPLOADS_DIR (default DATA_DIR/uploads) and DATABASE_URL (PostgreSQL) matter here.`;

const HELP: Record<string, string> = {
  main: `Usage: parley <command> [options]

Administration of a Parley instance.

Commands:
  backup <file>                 copy the SQLite database (and uploads) while the service runs
  restore <file>                put a backup in place as DATA_DIR's database (service stopped)
  users create <username>       create a person's account
  users reset-password <name>   set a new password and end their sessions
  users disable <username>      stop an account (and its bots) from being used
  users enable <username>       undo disable
  migrate                       bring the database schema up to date

Run "parley <command> --help" for a command's options.
${ENVIRONMENT}

Exit codes: 0 done, 1 failed, 2 wrong usage or configuration, 3 not for PostgreSQL (use pg_dump).`,
  backup: `Usage: parley backup <file> [--force]

Copies the SQLite database under DATA_DIR to <file> while the service keeps running and
writing (SQLite's online backup API: the copy is the database as of one commit), checks
the copy (PRAGMA integrity_check), then copies the uploaded files to <file>.uploads/.
Keep the two together. <file> must not exist unless --force.

With DATABASE_URL set (PostgreSQL) it explains how to use pg_dump instead and exits 3.

Options:
  --force   replace <file> and <file>.uploads/ if they exist
  --help    this text`,
  restore: `Usage: parley restore <file> [--force]

Puts the backup <file> (and <file>.uploads/, if there) in place as DATA_DIR's database and
uploads. Refuses while a Parley runs on DATA_DIR, when the backup fails its integrity
check or comes from a newer release, and when DATA_DIR already has a database, unless
--force: the files it replaces are then moved to DATA_DIR/replaced-<time>/, not deleted.
Start the service afterwards: it brings the schema up to date.

With DATABASE_URL set (PostgreSQL) it explains how to use pg_restore instead and exits 3.

Options:
  --force   replace an existing database (kept aside)
  --help    this text`,
  users: `Usage: parley users <create|reset-password|disable|enable> <username> [options]

  create <username>           a new person's account (REGISTRATION does not apply)
  reset-password <username>   a new password; every session of theirs ends
  disable <username>          no login, every session ends, their bots' tokens are refused
  enable <username>           the account (and the bots disabled with it) works again

Run "parley users <subcommand> --help" for its options.`,
  'users create': `Usage: parley users create <username> (--password-stdin | --generate)

Creates a person's account with the rules registration applies: a username of 2 to 32
letters, digits, "_", "." or "-"; a password of 8 to 256 characters, not a common one.

Options:
  --password-stdin   read the password from standard input (one line)
  --generate         make a random password and print it, once
  --help             this text`,
  'users reset-password': `Usage: parley users reset-password <username> (--password-stdin | --generate)

Sets a new password. Every session of the person ends: their requests are refused at
once, and a running service closes their gateway connections within REVOCATION_POLL_MS.

Options:
  --password-stdin   read the password from standard input (one line)
  --generate         make a random password and print it, once
  --help             this text`,
  'users disable': `Usage: parley users disable <username>

Disables a person's account: logging in answers 403 account_disabled, every session
ends, and the bots they own stop too (their tokens answer 403 account_disabled) until
the account is enabled. Nothing is deleted: servers, messages and memberships stay.
A running service closes their gateway connections within REVOCATION_POLL_MS.

Options:
  --help   this text`,
  'users enable': `Usage: parley users enable <username>

Enables a disabled account again, and the bots that were disabled with it. Sessions
ended by the disable stay ended: the person logs in again.

Options:
  --help   this text`,
  migrate: `Usage: parley migrate [--status]

Brings the database schema up to date and prints the migrations it ran. The service also
does this when it starts; this lets you do it first, on its own (see docs/deploy.md,
"Upgrades").

Options:
  --status   only list the migrations, applied and pending
  --help     this text`,
};

/** Parses `args` for `command`, with its flags; `--help` always allowed. */
function parse(command: string, args: string[], flags: string[], positionals: number) {
  const options: Record<string, { type: 'boolean' }> = { help: { type: 'boolean' } };
  for (const f of flags) options[f] = { type: 'boolean' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]!, command);
  }
  if (parsed.values.help) return { help: true as const, values: parsed.values, positionals: parsed.positionals };
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(
      positionals === 0 ? 'this command takes no arguments' : `expected ${positionals} argument${positionals > 1 ? 's' : ''}`,
      command,
    );
  }
  return { help: false as const, values: parsed.values, positionals: parsed.positionals };
}

/** What a CLI run needs from outside: tests pass their own. */
export interface CliIo {
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Standard input, at least up to its first line end (for --password-stdin, which takes that line only). */
  stdin: () => Promise<string>;
}

/** The first line of `text` without its line end (\n or \r\n): a password is one line, whatever follows it. */
export function firstLine(text: string): string {
  const end = text.indexOf('\n');
  const line = end === -1 ? text : text.slice(0, end);
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Runs the `parley` command with `argv` (without node and the script); resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`parley: ${err.message}\n\n${HELP[err.command ?? 'main']}\n`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      io.err(`parley: ${err.message}\n`);
      return EXIT.usage;
    }
    // AppError (a rule of the domain, e.g. a password too common) by name: see the imports.
    if (err instanceof CliFailure || (err instanceof Error && err.name === 'AppError')) {
      io.err(`parley: ${err.message}\n`);
      return EXIT.failure;
    }
    // Anything else is unexpected: one line, never a stack trace.
    io.err(`parley: failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failure;
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const topic = command === 'help' && rest.length > 0 ? rest.join(' ') : 'main';
    if (!HELP[topic]) throw new UsageError(`no help for "${topic}"`);
    io.out(`${HELP[topic]}\n`);
    return EXIT.ok;
  }
  switch (command) {
    case 'backup':
    case 'restore': {
      const p = parse(command, rest, ['force'], 1);
      if (p.help) return help(io, command);
      const config = loadConfig(io.env);
      if (config.databaseUrl) return postgresInstead(io, command, config.databaseUrl);
      const file = p.positionals[0]!;
      const force = p.values.force === true;
      const { backup, restore } = await import('./backup.js');
      if (command === 'backup') {
        const r = await backup(config, file, force);
        io.out(
          `Backed up ${config.dataDir} to ${r.file} (${mib(r.bytes)}, schema ${r.schema}, integrity ok)\n` +
            `Copied ${r.files} uploaded file${r.files === 1 ? '' : 's'} (${mib(r.fileBytes)}) to ${r.uploadsDir}/\n`,
        );
      } else {
        const r = restore(config, file, force);
        io.out(
          `Restored ${r.file} (schema ${r.schema}) into ${r.dataDir}, with ${r.files} uploaded file${r.files === 1 ? '' : 's'}\n` +
            (r.keptAside ? `The files it replaced are in ${r.keptAside}\n` : '') +
            'Start Parley: it brings the schema up to date.\n',
        );
      }
      return EXIT.ok;
    }
    case 'users':
      return users(rest, io);
    case 'migrate': {
      const p = parse(command, rest, ['status'], 0);
      if (p.help) return help(io, command);
      const config = loadConfig(io.env);
      const { migrateDatabase } = await import('../store/index.js');
      // On SQLite, Kysely's migration lock holds only within one process: migrating
      // takes the data directory's lock too, so it never runs beside a starting service.
      let unlock: (() => void) | undefined;
      if (!config.databaseUrl && !p.values.status) {
        const { lockDataDir } = await import('../store/data-dir-lock.js');
        try {
          unlock = lockDataDir(config.dataDir);
        } catch (err) {
          const pending = (await migrateDatabase(config, true)).status.filter((m) => !m.executedAt);
          if (pending.length > 0) throw new CliFailure(`${(err as Error).message} (it runs the migrations when it starts)`);
        }
      }
      const { ran, status } = await migrateDatabase(config, p.values.status === true).finally(() => unlock?.());
      if (p.values.status) {
        for (const m of status)
          io.out(`${m.executedAt ? 'applied' : 'pending'}  ${m.name}${m.executedAt ? `  ${m.executedAt.toISOString()}` : ''}\n`);
      } else if (ran.length === 0) {
        io.out(`The schema is up to date (${status.at(-1)?.name ?? 'none'}); nothing to do.\n`);
      } else {
        io.out(`Ran ${ran.length} migration${ran.length === 1 ? '' : 's'}:\n${ran.map((n) => `  ${n}\n`).join('')}`);
      }
      return EXIT.ok;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

const USER_COMMANDS = ['create', 'reset-password', 'disable', 'enable'];

async function users(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    if (sub === undefined) throw new UsageError('which users command?', 'users');
    return help(io, 'users');
  }
  if (!USER_COMMANDS.includes(sub)) throw new UsageError(`unknown users command "${sub}"`, 'users');
  const command = `users ${sub}`;
  const takesPassword = sub === 'create' || sub === 'reset-password';
  const p = parse(command, rest, takesPassword ? ['password-stdin', 'generate'] : [], 1);
  if (p.help) return help(io, command);
  const username = p.positionals[0]!;
  let password: string | undefined;
  let generated = false;
  if (takesPassword) {
    const fromStdin = p.values['password-stdin'] === true;
    generated = p.values.generate === true;
    if (fromStdin === generated) throw new UsageError('give exactly one of --password-stdin and --generate', command);
    // 18 random bytes: 24 characters of base64url, far from any common password.
    password = generated ? randomBytes(18).toString('base64url') : firstLine(await io.stdin());
  }
  const config = loadConfig(io.env);
  const { admin } = await import('../domain/admin.js');
  const store = await openStore(config);
  try {
    if (sub === 'create') {
      const user = await admin.createUser(store, username, password!);
      io.out(`Created ${user.username} (id ${user.id})\n`);
    } else if (sub === 'reset-password') {
      const r = await admin.resetPassword(store, username, password!);
      io.out(`Set a new password for ${r.user.username}; ended ${r.sessionsEnded} session${r.sessionsEnded === 1 ? '' : 's'}\n`);
    } else if (sub === 'disable') {
      const r = await admin.disable(store, username);
      io.out(
        r.already
          ? `${r.user.username} was already disabled\n`
          : `Disabled ${r.user.username}: ended ${r.sessionsEnded} session${r.sessionsEnded === 1 ? '' : 's'}, stopped ${r.bots} bot${r.bots === 1 ? '' : 's'}\n`,
      );
    } else {
      const r = await admin.enable(store, username);
      io.out(
        r.already ? `${r.user.username} is not disabled\n` : `Enabled ${r.user.username} and ${r.bots} bot${r.bots === 1 ? '' : 's'}\n`,
      );
    }
    // The one secret this command ever prints: the password the administrator asked it to make.
    if (generated) io.out(`Password: ${password}\n(shown once: give it to the person, who can change it in their settings)\n`);
  } finally {
    await store.close();
  }
  return EXIT.ok;
}

async function openStore(config: Config): Promise<Store> {
  const { Store } = await import('../store/index.js');
  try {
    // One command's few writes: the writer stays on the event loop.
    return await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, sqliteWriter: { thread: 'off' } });
  } catch (err) {
    throw new CliFailure(`cannot open the database: ${(err as Error).message}`);
  }
}

function help(io: CliIo, command: string): number {
  io.out(`${HELP[command]}\n`);
  return EXIT.ok;
}

/** The PostgreSQL way to back up or restore, with the connection named but no password. */
function postgresInstead(io: CliIo, command: string, databaseUrl: string): number {
  const u = new URL(databaseUrl);
  const hasPassword = u.password !== '';
  u.password = '';
  const target = u.toString();
  const passwordNote = hasPassword ? '\nThe password is not shown: pass it in PGPASSWORD or ~/.pgpass.' : '';
  const text =
    command === 'backup'
      ? `DATABASE_URL is set: the data is in PostgreSQL, which backs itself up. Use pg_dump, e.g.
  pg_dump --format=custom --file=parley-$(date +%F).dump '${target}'
and copy the uploads folder (UPLOADS_DIR) beside it. pg_dump takes a consistent snapshot
while the service runs.${passwordNote}`
      : `DATABASE_URL is set: the data is in PostgreSQL. Stop every instance, then use pg_restore, e.g.
  pg_restore --clean --if-exists --no-owner --dbname='${target}' parley.dump
and put the uploads folder back in UPLOADS_DIR.${passwordNote}`;
  io.out(`${text}\n`);
  return EXIT.postgres;
}

function mib(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
