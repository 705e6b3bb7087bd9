import Database from 'better-sqlite3';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fsyncPath } from '../fsync-path';
import { makePrivateDatabaseFile, makePrivateFile } from '../security/private-files';

/** Linux's id of the running boot: it changes exactly when the system (and its page cache) restarted. */
export function systemBootId(): string | undefined {
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

export interface ReadModelDatabaseOptions {
  /** Injected in tests; defaults to systemBootId(). */
  bootId?: () => string | undefined;
  /** Told when read models written before a system restart are dropped to be rebuilt. */
  warn?: (message: string) => void;
}

/** Next to the file while it may hold writes the disk has not been asked to keep: the boot id they were made under. */
const unsyncedMark = (file: string) => `${file}.unsynced`;

/**
 * The read models live in their own SQLite file (also when events are in EventStoreDB): they can
 * always be rebuilt from the event history, and each batch commits its rows and its checkpoint
 * together.
 *
 * Their commits are not fsynced (synchronous=OFF): with fsyncs, every WAL checkpoint stalled the
 * event loop for 5–15 ms under load (the authorization-code exchange's p99). A crash of the process
 * loses nothing — written pages are in the operating system's cache — but a crash of the system can
 * leave the file torn. So the file carries a mark with the boot id it was written under; opened
 * under another boot id (the system restarted before a clean close), it is deleted and every
 * projection rebuilds from the event history. A clean close (closeReadModelDatabase) syncs the file
 * and removes the mark. Where no boot id can be read, commits are fsynced as before (NORMAL).
 */
export function openReadModelDatabase(file: string, options: ReadModelDatabaseOptions = {}): Database.Database {
  // An in-memory database (tests) has no file to mark or protect: the steps below would create
  // files named ':memory:…' in the working directory.
  if (file === ':memory:') return prepare(new Database(file), 'NORMAL');
  const bootId = (options.bootId ?? systemBootId)();
  const mark = unsyncedMark(file);
  // A mark from another boot — or one that cannot be compared — means possibly torn.
  if (existsSync(mark) && (bootId === undefined || readFileSync(mark, 'utf8') !== bootId)) {
    for (const path of [file, `${file}-wal`, `${file}-shm`, mark]) rmSync(path, { force: true });
    options.warn?.(
      'the read models were written without fsync before a system restart and may be torn: rebuilding them from the event history',
    );
  }
  if (bootId !== undefined) {
    // Durable before the first unsynced write: the file and its directory entry.
    writeFileSync(mark, bootId, { mode: 0o600 });
    makePrivateFile(mark); // one an older version left 0644
    fsyncPath(mark);
    fsyncPath(dirname(file));
  }
  makePrivateDatabaseFile(file);
  return prepare(new Database(file), bootId === undefined ? 'NORMAL' : 'OFF');
}

function prepare(db: Database.Database, synchronous: 'NORMAL' | 'OFF'): Database.Database {
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  // 4 MiB of page cache (better-sqlite3's default is 16 MiB per connection): the hot pages of the
  // projections' indexes and the GETs' rows fit, and the rest is the OS page cache a pread away.
  // Issue 36: with the store's two connections trimmed too, the service's peak RSS through 100,000
  // batch creates went 274–278 → 240–246 MiB, the event loop's CPU per batch within its spread
  // (docs/records.md).
  db.pragma('cache_size = -4096');
  db.exec(`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    position INTEGER NOT NULL
  ) WITHOUT ROWID`);
  // The store the checkpoints' positions belong to (Checkpoints.bindToStore).
  db.exec(`CREATE TABLE IF NOT EXISTS projection_store (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    identity TEXT NOT NULL
  )`);
  return db;
}

/**
 * Folds the WAL into the file, syncs it, closes, and only then removes the unsynced mark. When the
 * WAL could not be folded (another connection still reading) the mark stays: the next start after
 * a system restart rebuilds, which is always safe.
 */
export function closeReadModelDatabase(db: Database.Database): void {
  if (!db.open) return;
  const file = db.name;
  const mark = unsyncedMark(file);
  let folded = false;
  try {
    db.pragma('busy_timeout = 0'); // shutting down: never wait for a reader
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    folded = result?.busy === 0;
  } catch {
    // SQLITE_BUSY and the like: leave the mark
  }
  db.close();
  if (!folded || !existsSync(mark)) return;
  fsyncPath(file);
  rmSync(mark);
  fsyncPath(dirname(file));
}

export const READ_MODEL_DB = Symbol('READ_MODEL_DB');
