import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { dataDirHolder, lockDataDir } from '../store/data-dir-lock.js';
import { SEARCH_FILE, searchFiles } from '../store/dialects/sqlite-search.js';
import { MIGRATION_NAMES } from '../store/migrations.js';
import { CliFailure } from './failure.js';

/** The database file under DATA_DIR (as `sqliteAdapter` names it). */
export const DB_FILE = 'parley.db';

/** Where a backup's uploaded files go: beside the database copy. */
export const uploadsOf = (backupFile: string) => `${backupFile}.uploads`;

/** What `backup` wrote. */
export interface BackupReport {
  file: string;
  bytes: number;
  schema: string;
  uploadsDir: string;
  files: number;
  fileBytes: number;
}

/**
 * An online, consistent copy of the live SQLite database while the service runs, with
 * SQLite's backup API, then a copy of the uploads folder beside it.
 *
 * The backup copies every page in one step: a step reads inside one read transaction,
 * so the copy is the database as of one commit, and in WAL mode the service keeps
 * writing meanwhile. Copying in small steps would let the service's writes (another
 * process) restart the copy from the beginning each time, which under steady writes
 * might never finish. The copy is written to `<file>.partial`, checked with
 * `PRAGMA integrity_check`, then renamed, so `<file>` is only ever a whole, checked backup.
 *
 * Uploads are written once and never changed, so copying the folder after the database
 * gives every file the copy references (an upload deleted in between is the exception).
 */
export async function backup(config: Config, file: string, force: boolean): Promise<BackupReport> {
  const source = path.join(config.dataDir, DB_FILE);
  if (!fs.existsSync(source)) throw new CliFailure(`no database at ${source} (is DATA_DIR right?)`);
  const target = path.resolve(file);
  const uploadsTarget = uploadsOf(target);
  if (!force && (fs.existsSync(target) || fs.existsSync(uploadsTarget))) {
    throw new CliFailure(`${target} already exists; choose a new name or add --force to replace it`);
  }
  if (!fs.existsSync(path.dirname(target))) throw new CliFailure(`the folder ${path.dirname(target)} does not exist`);
  const partial = `${target}.partial`;
  fs.rmSync(partial, { force: true });
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    await db.backup(partial, { progress: () => 0x7fffffff });
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw new CliFailure(`the backup failed: ${(err as Error).message}`);
  } finally {
    db.close();
  }
  let schema: string;
  try {
    schema = checkCopy(partial).schema;
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  }
  fs.renameSync(partial, target);

  fs.rmSync(uploadsTarget, { recursive: true, force: true });
  fs.mkdirSync(uploadsTarget);
  let files = 0;
  let fileBytes = 0;
  if (fs.existsSync(config.uploadsDir)) {
    for (const entry of fs.readdirSync(config.uploadsDir, { recursive: true, withFileTypes: true })) {
      // `.part` files are uploads still being received: no message can reference them yet.
      if (!entry.isFile() || entry.name.endsWith('.part')) continue;
      const from = path.join(entry.parentPath, entry.name);
      const to = path.join(uploadsTarget, path.relative(config.uploadsDir, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      try {
        fs.copyFileSync(from, to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // deleted meanwhile
        throw err;
      }
      files++;
      fileBytes += fs.statSync(to).size;
    }
  }
  return { file: target, bytes: fs.statSync(target).size, schema, uploadsDir: uploadsTarget, files, fileBytes };
}

/** Checks a database copy: SQLite's integrity check, and the schema it has; throws CliFailure when it is unusable. */
export function checkCopy(file: string): { schema: string; migrations: string[] } {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new CliFailure(`cannot open ${file}: ${(err as Error).message}`);
  }
  try {
    let problems: string[];
    try {
      problems = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    } catch (err) {
      throw new CliFailure(`${file} is not a SQLite database: ${(err as Error).message}`);
    }
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new CliFailure(`${file} failed its integrity check: ${problems.slice(0, 5).join('; ')}`);
    }
    const hasTable = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    if (!hasTable) throw new CliFailure(`${file} is not a Parley database (it has no migration table)`);
    const migrations = (db.prepare('select name from kysely_migration order by name').all() as Array<{ name: string }>).map((r) => r.name);
    return { schema: migrations.at(-1) ?? 'empty', migrations };
  } finally {
    db.close();
  }
}

/** What `restore` did. */
export interface RestoreReport {
  file: string;
  schema: string;
  dataDir: string;
  files: number;
  /** Where the files it replaced were moved, if there were any. */
  keptAside?: string;
}

/**
 * Puts a backup in place as the database of DATA_DIR, with its uploads. Refuses while a
 * service runs on DATA_DIR (it holds the directory's lock; this command takes that lock
 * too, so none can start meanwhile), refuses a backup that fails its integrity check or
 * comes from a newer release, and refuses to replace a database unless `force`; what it
 * replaces is moved to `DATA_DIR/replaced-<time>/`, never deleted.
 */
export function restore(config: Config, file: string, force: boolean): RestoreReport {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new CliFailure(`no backup at ${source}`);
  const holder = dataDirHolder(config.dataDir);
  if (holder.locked) {
    throw new CliFailure(`a Parley${holder.pid ? ` (pid ${holder.pid})` : ''} is running on ${config.dataDir}; stop it before restoring`);
  }
  const { schema, migrations } = checkCopy(source);
  const unknown = migrations.filter((m) => !MIGRATION_NAMES.includes(m));
  if (unknown.length > 0) {
    throw new CliFailure(
      `the backup comes from a newer Parley (its schema has ${unknown.join(', ')}); restore it with that release or a later one`,
    );
  }
  let unlock: () => void;
  try {
    unlock = lockDataDir(config.dataDir);
  } catch (err) {
    throw new CliFailure((err as Error).message);
  }
  try {
    const target = path.join(config.dataDir, DB_FILE);
    const existing = [target, `${target}-wal`, `${target}-shm`].filter((f) => fs.existsSync(f));
    const uploadsExist = fs.existsSync(config.uploadsDir) && fs.readdirSync(config.uploadsDir).length > 0;
    if (existing.length > 0 && !force) {
      throw new CliFailure(`${target} already exists; add --force to replace it (the current files are kept aside)`);
    }
    let keptAside: string | undefined;
    if (existing.length > 0 || uploadsExist) {
      keptAside = path.join(config.dataDir, `replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      fs.mkdirSync(keptAside);
      for (const f of existing) fs.renameSync(f, path.join(keptAside, path.basename(f)));
      if (uploadsExist) fs.renameSync(config.uploadsDir, path.join(keptAside, 'uploads'));
    }
    const partial = `${target}.restoring`;
    fs.copyFileSync(source, partial);
    // The search index is built from the messages: the restored database's is built anew
    // when Parley next starts (it would be anyway, as it no longer matches).
    for (const f of searchFiles(path.join(config.dataDir, SEARCH_FILE))) fs.rmSync(f, { force: true });
    fs.renameSync(partial, target);
    let files = 0;
    const uploads = uploadsOf(source);
    if (fs.existsSync(uploads)) {
      fs.cpSync(uploads, config.uploadsDir, { recursive: true });
      files = fs.readdirSync(config.uploadsDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
    }
    return { file: source, schema, dataDir: config.dataDir, files, ...(keptAside ? { keptAside } : {}) };
  } finally {
    unlock();
  }
}
