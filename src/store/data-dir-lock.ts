import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The lock a running service holds in its DATA_DIR (SQLite mode), and the note saying which process it is. */
export const LOCK_FILE = 'parley.lock';
export const PID_FILE = 'parley.pid';

/** Thrown when another running process holds the data directory. */
export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(`another Parley${pid ? ` (pid ${pid})` : ''} is running on ${dataDir}; stop it first`);
    this.name = 'DataDirLocked';
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function pidOf(dataDir: string): number | undefined {
  try {
    const n = Number.parseInt(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8'), 10);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the data directory for this process, or throws `DataDirLocked`. The lock is
 * SQLite's own exclusive file lock on `parley.lock` (a connection in exclusive locking
 * mode keeps it until closed), so the operating system drops it when the process dies:
 * no stale lock after a crash or a container restart, where a pid file would be
 * ambiguous (the service is pid 1 again). Returns the release.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, LOCK_FILE));
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    // A write, so the exclusive lock is taken and then kept after the commit.
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER, started_at TEXT); DELETE FROM holder');
    db.prepare('INSERT INTO holder VALUES (?, ?)').run(process.pid, new Date().toISOString());
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if (isBusy(err)) throw new DataDirLocked(dataDir, pidOf(dataDir));
    throw err;
  }
  // For people and messages only (the lock above is what counts).
  fs.writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n`);
  return () => {
    fs.rmSync(path.join(dataDir, PID_FILE), { force: true });
    db.close();
  };
}

/** Whether a running process holds `dataDir` (and its pid, when known); for `parley restore`. */
export function dataDirHolder(dataDir: string): { locked: boolean; pid?: number } {
  const file = path.join(dataDir, LOCK_FILE);
  if (!fs.existsSync(file)) return { locked: false };
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return { locked: false };
  } catch (err) {
    if (!isBusy(err)) throw err;
    const pid = pidOf(dataDir);
    return pid ? { locked: true, pid } : { locked: true };
  } finally {
    db.close();
  }
}
