import Database from 'better-sqlite3';
import { resolve, join } from 'node:path';
import { makePrivateDatabaseFile, makePrivateDataDir } from '../security/private-files';
import { refuseLostEventHistory } from './lost-history-check';
import { StartupRefusal } from './startup-refusal';

export const LOCK_FILE = 'instance.lock';

/**
 * One running service per DATA_DIR: a second one would answer with its own in-memory state (a
 * revoked token, an uninstalled app still honoured there). The lock is SQLite's own exclusive lock
 * on DATA_DIR/instance.lock, held by an open transaction for the life of the process: a POSIX
 * record lock, which the operating system drops when the process ends, however it ends (kill -9
 * included), so the next start never finds a stale lock. Another process, or another service in
 * this process, is refused at once.
 */
export class DataDirLock {
  private constructor(private readonly db: Database.Database) {}

  /**
   * Before any other file of DATA_DIR is opened: the lock, then (embedded store only) the check
   * that events.sqlite was not lost. Released again when the check refuses.
   */
  static acquireFor(dataDir: string, options: { embeddedStore: boolean }): DataDirLock {
    makePrivateDataDir(dataDir);
    const lock = DataDirLock.acquire(dataDir);
    try {
      if (options.embeddedStore) refuseLostEventHistory(dataDir);
    } catch (error) {
      lock.release();
      throw error;
    }
    return lock;
  }

  static acquire(dataDir: string): DataDirLock {
    const file = join(dataDir, LOCK_FILE);
    makePrivateDatabaseFile(file);
    const db = new Database(file, { timeout: 0 });
    try {
      db.pragma('journal_mode = DELETE'); // record locks on the file itself, no WAL shared memory
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) {
        throw new StartupRefusal(
          `DATA_DIR ${resolve(dataDir)} is in use by another running instance of this service: stop that one first, or give this one its own DATA_DIR.`,
        );
      }
      throw error;
    }
    return new DataDirLock(db);
  }

  /** Ends the transaction and closes the file: the next service may start on DATA_DIR. */
  release(): void {
    if (this.db.open) this.db.close();
  }
}
