import type Database from 'better-sqlite3';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { MAX_SEARCH_LAG_MS } from '../domain/search-lag';
import { hasSeveralOptions, indexedTokensOf, lowerOf, numericOf, optionsOf } from '../domain/search-values';

/**
 * What the search index held before, for the search lag (docs/search.md, "Consistency"): each
 * superseded version of a record's document and of each of its values, with the time span in which
 * it was the indexed one (`since` ≤ t < `until`). An update moves the values it replaces here (a
 * property that had no value leaves a row without one, so the new value stays unseen before the
 * update); an archive or a merge moves the whole record. A search with a lag reads the index as of
 * `now - lag` through these (search-as-of.ts); without a lag nothing reads them. They are kept only
 * for accounts that have a lag (`search_lagged_accounts`, from `search.SearchLagSet` in the same
 * feed, so a rebuild keeps the same rows), from the moment it is set; turning it off drops them.
 * Rows older than the account's lag are pruned as its events arrive, by the events' own times (a lag
 * made longer later finds only what the shorter one kept).
 * A GDPR purge removes them with the record.
 */
export const SEARCH_LAGGED_ACCOUNTS = `
  CREATE TABLE IF NOT EXISTS search_lagged_accounts (hub_id INTEGER PRIMARY KEY, lag_ms INTEGER NOT NULL);
`;

/** The account's search lag when it has one (its replaced versions are kept that long); else null. */
export function historyLagOf(db: Database.Database, hubId: number): number | null {
  const row = cachedStatement(db, 'SELECT lag_ms FROM search_lagged_accounts WHERE hub_id = ?').get(hubId) as
    { lag_ms: number } | undefined;
  return row?.lag_ms ?? null;
}
export const SEARCH_HISTORY_TABLES = `
  CREATE TABLE IF NOT EXISTS search_docs_past (
    hub_id INTEGER NOT NULL,
    object_type_id TEXT NOT NULL,
    id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    until INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_docs_past_record ON search_docs_past (hub_id, object_type_id, id);
  CREATE INDEX IF NOT EXISTS search_docs_past_until ON search_docs_past (until);
  CREATE TABLE IF NOT EXISTS search_values_past (
    hub_id INTEGER NOT NULL,
    object_type_id TEXT NOT NULL,
    property TEXT NOT NULL,
    id INTEGER NOT NULL,
    value TEXT,
    lower TEXT,
    num REAL,
    since INTEGER NOT NULL,
    until INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_values_past_key ON search_values_past (hub_id, object_type_id, id, property, until);
  CREATE INDEX IF NOT EXISTS search_values_past_until ON search_values_past (until);
  CREATE TABLE IF NOT EXISTS search_tokens_past (
    hub_id INTEGER NOT NULL,
    object_type_id TEXT NOT NULL,
    property TEXT NOT NULL,
    token TEXT NOT NULL,
    id INTEGER NOT NULL,
    since INTEGER NOT NULL,
    until INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_tokens_past_token ON search_tokens_past (hub_id, object_type_id, property, token);
  CREATE INDEX IF NOT EXISTS search_tokens_past_record ON search_tokens_past (hub_id, object_type_id, id);
  CREATE INDEX IF NOT EXISTS search_tokens_past_until ON search_tokens_past (until);
  CREATE TABLE IF NOT EXISTS search_options_past (
    hub_id INTEGER NOT NULL,
    object_type_id TEXT NOT NULL,
    property TEXT NOT NULL,
    option TEXT NOT NULL,
    id INTEGER NOT NULL,
    since INTEGER NOT NULL,
    until INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS search_options_past_option ON search_options_past (hub_id, object_type_id, property, option);
  CREATE INDEX IF NOT EXISTS search_options_past_record ON search_options_past (hub_id, object_type_id, id);
  CREATE INDEX IF NOT EXISTS search_options_past_until ON search_options_past (until);
`;

const PAST_TABLES = ['search_docs_past', 'search_values_past', 'search_tokens_past', 'search_options_past'];

export const resetSearchHistory = (db: Database.Database): void => {
  for (const table of PAST_TABLES) db.exec(`DELETE FROM ${table}`);
};

export interface DocVersion {
  created_at: number;
  updated_at: number;
}

/** The document's version that stops being the indexed one at `until`. */
export function keepDocVersion(
  db: Database.Database,
  hubId: number,
  type: string,
  id: number,
  doc: DocVersion,
  until: number,
): void {
  cachedStatement(
    db,
    'INSERT INTO search_docs_past (hub_id, object_type_id, id, created_at, updated_at, until) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(hubId, type, id, doc.created_at, doc.updated_at, until);
}

/**
 * The value of `property` (null: none) that stops being the indexed one at `until`; it had been since
 * the end of the property's last kept version, or since the record's creation.
 */
export function keepValueVersion(
  db: Database.Database,
  hubId: number,
  type: string,
  id: number,
  property: string,
  value: string | null,
  createdAt: number,
  until: number,
): void {
  const last = cachedStatement(
    db,
    'SELECT MAX(until) AS until FROM search_values_past WHERE hub_id = ? AND object_type_id = ? AND id = ? AND property = ?',
  ).get(hubId, type, id, property) as { until: number | null };
  const since = last.until ?? createdAt;
  cachedStatement(
    db,
    'INSERT INTO search_values_past (hub_id, object_type_id, property, id, value, lower, num, since, until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    hubId,
    type,
    property,
    id,
    value,
    value === null ? null : lowerOf(value),
    value === null ? null : numericOf(value),
    since,
    until,
  );
  if (value === null) return;
  const token = cachedStatement(
    db,
    'INSERT INTO search_tokens_past (hub_id, object_type_id, property, token, id, since, until) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const t of indexedTokensOf(value)) token.run(hubId, type, property, t, id, since, until);
  if (!hasSeveralOptions(value)) return;
  const option = cachedStatement(
    db,
    'INSERT INTO search_options_past (hub_id, object_type_id, property, option, id, since, until) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const o of optionsOf(value)) option.run(hubId, type, property, o, id, since, until);
}

/** The account's versions its lag can no longer reach (by the event's time). */
export function pruneSearchHistory(db: Database.Database, hubId: number, now: number, lagMs: number): void {
  for (const table of PAST_TABLES) {
    cachedStatement(db, `DELETE FROM ${table} WHERE until < ? AND hub_id = ?`).run(
      now - Math.min(lagMs, MAX_SEARCH_LAG_MS),
      hubId,
    );
  }
}

/** The lag turned off: the account's past versions are no longer read. */
export function forgetAccountHistory(db: Database.Database, hubId: number): void {
  for (const table of PAST_TABLES) cachedStatement(db, `DELETE FROM ${table} WHERE hub_id = ?`).run(hubId);
}

/** A GDPR purge: the record's past versions go with it. */
export function forgetSearchHistory(db: Database.Database, hubId: number, type: string, id: number): void {
  for (const table of PAST_TABLES) {
    cachedStatement(db, `DELETE FROM ${table} WHERE hub_id = ? AND object_type_id = ? AND id = ?`).run(hubId, type, id);
  }
}
