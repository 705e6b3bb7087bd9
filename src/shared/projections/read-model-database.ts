import Database from 'better-sqlite3';

/**
 * The read models live in their own SQLite file (also when events are in EventStoreDB): they can
 * always be rebuilt from the event history. synchronous=NORMAL is enough here because each batch
 * commits its rows and its checkpoint together.
 */
export function openReadModelDatabase(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS projection_checkpoints (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    position INTEGER NOT NULL
  ) WITHOUT ROWID`);
  return db;
}

export const READ_MODEL_DB = Symbol('READ_MODEL_DB');
