import type Database from 'better-sqlite3';

/**
 * The one prepared-statement cache of the read side: statements by SQL text, per database.
 * Projections and queries that name a group of statements build it from here once. Projections and queries run the same few
 * statements for every event or request; preparing them each time showed up in every profile
 * (and unfinalized statements pile up until GC). SQLite re-prepares a cached statement itself
 * when the schema changes, so a reset or rebuild needs nothing from here.
 */
const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function cachedStatement(db: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}
