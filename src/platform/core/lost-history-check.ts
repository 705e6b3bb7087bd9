import Database from 'better-sqlite3';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseManifest } from '../archive/archive-manifest';
import { StartupRefusal } from './startup-refusal';

/**
 * An events.sqlite that is missing, empty, or a database without events (a fresh file put in its
 * place) would be taken for a new store, and the read models built from the lost history would
 * then be rebuilt from nothing (every account gone). When the read models' checkpoints or the
 * archive's manifest show that a history existed, start-up is refused instead, before any file is
 * opened for writing; DATA_DIR is left as it was.
 */
export function refuseLostEventHistory(dataDir: string): void {
  const events = join(dataDir, 'events.sqlite');
  const state = eventFileState(events);
  if (state === 'has events') return;
  const evidence = [
    readModelsHaveHistory(join(dataDir, 'readmodels.sqlite')) ? 'readmodels.sqlite' : null,
    archiveHasHistory(join(dataDir, 'archive', 'manifest.json')) ? 'archive/manifest.json' : null,
  ].filter((e): e is string => e !== null);
  if (evidence.length === 0) return;
  throw new StartupRefusal(
    `${resolve(events)} ${state}, but ${evidence.join(' and ')} in DATA_DIR ${evidence.length > 1 ? 'show' : 'shows'} that an event history existed: restore events.sqlite from a backup (no file was changed), or move DATA_DIR away to really start with an empty store.`,
  );
}

/**
 * 'has events' also for a file that cannot be read as a database: the store's own open then says
 * what is wrong with it. A main file that is empty or missing beside a non-empty WAL is left to
 * SQLite as well.
 */
function eventFileState(file: string): 'has events' | 'is missing' | 'is empty' | 'holds no events' {
  if (isEmptyOrMissing(file)) {
    if (!isEmptyOrMissing(`${file}-wal`)) return 'has events';
    return existsSync(file) ? 'is empty' : 'is missing';
  }
  const any = readOnly(file, (db) => {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name IN ('event_log', 'events')")
      .all() as Array<{ name: string }>;
    // event_log in the current row format; a first-format file has a table named events.
    return tables.some((t) => db.prepare(`SELECT 1 FROM "${t.name}" LIMIT 1`).get() !== undefined);
  });
  return any === false ? 'holds no events' : 'has events';
}

/**
 * Runs `read` on the file opened read-only; undefined when it cannot be read. SQLite opens a WAL
 * database's -wal and -shm files even read-only: the ones it created here are removed again, so a
 * check leaves DATA_DIR as it found it.
 */
function readOnly<T>(file: string, read: (db: Database.Database) => T): T | undefined {
  const companions = [`${file}-wal`, `${file}-shm`].filter((f) => !existsSync(f));
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  } finally {
    for (const f of companions) rmSync(f, { force: true });
  }
}

function isEmptyOrMissing(file: string): boolean {
  try {
    return statSync(file).size === 0;
  } catch {
    return true;
  }
}

/** A checkpoint past 0: some projection applied events. Unreadable read models are no evidence. */
function readModelsHaveHistory(file: string): boolean {
  if (isEmptyOrMissing(file)) return false;
  return (
    readOnly(
      file,
      (db) => db.prepare('SELECT 1 FROM projection_checkpoints WHERE position > 0 LIMIT 1').get() !== undefined,
    ) ?? false
  );
}

/** A manifest naming any archive file: events were moved out of a store that held them. */
function archiveHasHistory(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return Object.keys(parseManifest(readFileSync(file, 'utf8')).files).length > 0;
  } catch {
    return true; // a manifest we cannot read still says an archive was written
  }
}
