import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CrmRecordEventType, type RecordEvent } from '../../crm-records/crm-records.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { systemPropertyTypes } from '../application/search-types';
import { type SearchEvent, SearchEventType } from '../domain/search-lag';
import {
  hasSeveralOptions,
  ID_BUCKET_SIZE,
  indexedTokensOf,
  lowerOf,
  numericOf,
  optionsOf,
} from '../domain/search-values';
import {
  forgetAccountHistory,
  forgetSearchHistory,
  keepDocVersion,
  historyLagOf,
  SEARCH_LAGGED_ACCOUNTS,
  keepValueVersion,
  pruneSearchHistory,
  resetSearchHistory,
  SEARCH_HISTORY_TABLES,
} from './search-history';

export const CRM_SEARCH_PROJECTION = 'crm-search';

/** A record's value in the index: the record and the property. */
interface ValueAt {
  hubId: number;
  type: string;
  id: number;
  property: string;
}

/** The names of a type's system values (the id, the create and modified dates), per type. */
const systemNames = new Map<string, ReadonlySet<string>>();
function systemNamesOf(objectTypeId: string): ReadonlySet<string> {
  let names = systemNames.get(objectTypeId);
  if (!names) systemNames.set(objectTypeId, (names = new Set(Object.keys(systemPropertyTypes(objectTypeId)))));
  return names;
}

/**
 * The search read model, built from the records module's published events:
 * - `search_docs`: one row per live (not archived) record, with its create and update times (indexed by
 *   each, so a page sorted on them walks its index), and `search_counts` their number per account and type
 *   (what a negation's total subtracts from, and what the page plan weighs a total against) and
 *   `search_id_buckets` per 1,024 ids (ID_BUCKET_SIZE: an id range's total without walking it);
 * - `search_values`: one row per value of a record, indexed by property and lower-cased value, and by
 *   property and numeric value (numbers, dates as epoch ms); not the system values (`hs_object_id`,
 *   the create and modified dates), which are the document's own columns: the compiler filters them
 *   there (search-compiler.ts). They were half a contact's value rows and 13–15 of its 23 token rows,
 *   each a B-tree insert on the event loop;
 * - `search_tokens`: the inverted index, one row per token of a value (the full-text index CONTAINS_TOKEN
 *   and `query` read);
 * - `search_options`: the options of the values with several (`a;b;c`), one row each: what a
 *   multi-checkbox property compares option by option (a value without `;` is its own option);
 * - the `*_past` tables (search-history.ts): the versions an update or an archive replaced, for an
 *   hour, which a search with a lag reads.
 * Archived, merged and purged records leave the current tables: search finds live records only.
 */
@Injectable()
export class CrmSearchProjection implements Projection<RecordEvent | SearchEvent> {
  readonly name = CRM_SEARCH_PROJECTION;
  // 4: the system values left search_values and search_tokens (the documents' columns hold them).
  readonly version = 4;
  readonly handles: readonly (RecordEvent | SearchEvent)['type'][] = [
    SearchEventType.SearchLagSet,
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordRestored,
    CrmRecordEventType.RecordPropertiesChanged,
    CrmRecordEventType.RecordArchived,
    CrmRecordEventType.RecordMerged,
    CrmRecordEventType.RecordPurged,
  ];

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS search_docs (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        id INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS search_docs_created ON search_docs (hub_id, object_type_id, created_at, id, updated_at);
      CREATE INDEX IF NOT EXISTS search_docs_updated ON search_docs (hub_id, object_type_id, updated_at, id, created_at);
      CREATE TABLE IF NOT EXISTS search_counts (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        docs INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS search_id_buckets (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        bucket INTEGER NOT NULL,
        docs INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, bucket)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS search_values (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        property TEXT NOT NULL,
        id INTEGER NOT NULL,
        value TEXT NOT NULL,
        lower TEXT NOT NULL,
        num REAL,
        PRIMARY KEY (hub_id, object_type_id, property, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS search_values_lower ON search_values (hub_id, object_type_id, property, lower, id);
      CREATE INDEX IF NOT EXISTS search_values_num ON search_values (hub_id, object_type_id, property, num, id)
        WHERE num IS NOT NULL;
      CREATE INDEX IF NOT EXISTS search_values_record ON search_values (hub_id, object_type_id, id);
      CREATE TABLE IF NOT EXISTS search_tokens (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        property TEXT NOT NULL,
        token TEXT NOT NULL,
        id INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, property, token, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS search_tokens_record ON search_tokens (hub_id, object_type_id, id);
      CREATE TABLE IF NOT EXISTS search_options (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        property TEXT NOT NULL,
        option TEXT NOT NULL,
        id INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, property, option, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS search_options_record ON search_options (hub_id, object_type_id, id);
      ${SEARCH_HISTORY_TABLES}
      ${SEARCH_LAGGED_ACCOUNTS}
    `);
  }

  reset(db: Database.Database): void {
    db.exec(
      'DELETE FROM search_docs; DELETE FROM search_counts; DELETE FROM search_id_buckets;' +
        ' DELETE FROM search_values; DELETE FROM search_tokens; DELETE FROM search_options;',
    );
    resetSearchHistory(db);
  }

  apply(event: Recorded<RecordEvent | SearchEvent>, db: Database.Database): void {
    switch (event.type) {
      case SearchEventType.SearchLagSet: {
        // Past versions are kept only while the account has a lag (no cost for the others).
        const { hubId, lagMs } = event.data;
        if (lagMs > 0) {
          cachedStatement(db, 'INSERT OR REPLACE INTO search_lagged_accounts (hub_id, lag_ms) VALUES (?, ?)').run(
            hubId,
            lagMs,
          );
          pruneSearchHistory(db, hubId, event.data.setAt, lagMs);
        } else {
          cachedStatement(db, 'DELETE FROM search_lagged_accounts WHERE hub_id = ?').run(hubId);
          forgetAccountHistory(db, hubId);
        }
        return;
      }
      case CrmRecordEventType.RecordCreated:
        this.index(db, event.data, event.data.createdAt);
        return;
      // Dropped on its archive: indexed again from the values the restore carries.
      case CrmRecordEventType.RecordRestored:
        this.index(db, event.data, event.data.restoredAt);
        return;
      case CrmRecordEventType.RecordPropertiesChanged: {
        const d = event.data;
        const doc = cachedStatement(
          db,
          'SELECT created_at, updated_at FROM search_docs WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).get(d.hubId, d.objectTypeId, d.id) as { created_at: number; updated_at: number } | undefined;
        if (!doc) return;
        const lag = historyLagOf(db, d.hubId);
        const keep = lag !== null;
        if (keep) {
          pruneSearchHistory(db, d.hubId, d.changedAt, lag);
          keepDocVersion(db, d.hubId, d.objectTypeId, d.id, doc, d.changedAt);
        }
        cachedStatement(
          db,
          'UPDATE search_docs SET updated_at = ? WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).run(d.changedAt, d.hubId, d.objectTypeId, d.id);
        const system = systemNamesOf(d.objectTypeId);
        for (const [property, value] of Object.entries(d.changes)) {
          if (system.has(property)) continue;
          const at: ValueAt = { hubId: d.hubId, type: d.objectTypeId, id: d.id, property };
          const old = this.valueOf(db, at);
          // Unchanged (a value written again): its rows stay as they are.
          if ((old ?? '') === value) continue;
          if (keep) keepValueVersion(db, d.hubId, d.objectTypeId, d.id, property, old, doc.created_at, d.changedAt);
          if (old === null) this.insertValue(db, at, value);
          else if (value === '') this.deleteValue(db, at, old);
          else this.replaceValue(db, at, old, value);
        }
        return;
      }
      case CrmRecordEventType.RecordArchived:
        this.retire(db, event.data.hubId, event.data.objectTypeId, event.data.id, event.data.archivedAt);
        return;
      case CrmRecordEventType.RecordMerged:
        this.retire(db, event.data.hubId, event.data.objectTypeId, event.data.id, event.data.mergedAt);
        return;
      case CrmRecordEventType.RecordPurged:
        // GDPR: gone at once, its past versions too (no lag keeps personal data).
        this.remove(db, event.data.hubId, event.data.objectTypeId, event.data.id);
        forgetSearchHistory(db, event.data.hubId, event.data.objectTypeId, event.data.id);
        return;
      case CrmRecordEventType.RecordIdVoided:
        return;
    }
  }

  /**
   * Indexes one value, a statement a row: multi-row INSERTs of a record's values and tokens measured
   * 20 % slower on these tables than one statement a row (in one process, main's build alternated).
   */
  private insertValue(db: Database.Database, at: ValueAt, value: string) {
    cachedStatement(
      db,
      `INSERT INTO search_values (hub_id, object_type_id, property, id, value, lower, num) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(at.hubId, at.type, at.property, at.id, value, lowerOf(value), numericOf(value));
    this.insertTokens(db, at, indexedTokensOf(value));
    this.insertOptions(db, at, value);
  }

  /** The value indexed for a record's property (null: none). */
  private valueOf(db: Database.Database, at: ValueAt): string | null {
    const row = cachedStatement(
      db,
      'SELECT value FROM search_values WHERE hub_id = ? AND object_type_id = ? AND property = ? AND id = ?',
    ).get(at.hubId, at.type, at.property, at.id) as { value: string } | undefined;
    return row?.value ?? null;
  }

  /** Removes a value (`old`, what valueOf answered) from the index. */
  private deleteValue(db: Database.Database, at: ValueAt, old: string) {
    cachedStatement(
      db,
      'DELETE FROM search_values WHERE hub_id = ? AND object_type_id = ? AND property = ? AND id = ?',
    ).run(at.hubId, at.type, at.property, at.id);
    this.deleteTokens(db, at, indexedTokensOf(old));
    this.deleteOptions(db, at, old);
  }

  /**
   * Replaces a value in place: its row updated, and of its tokens only those that differ deleted or
   * inserted (an update's modified date shares most of its tokens with the one before).
   */
  private replaceValue(db: Database.Database, at: ValueAt, old: string, value: string) {
    cachedStatement(
      db,
      `UPDATE search_values SET value = ?, lower = ?, num = ?
        WHERE hub_id = ? AND object_type_id = ? AND property = ? AND id = ?`,
    ).run(value, lowerOf(value), numericOf(value), at.hubId, at.type, at.property, at.id);
    const before = new Set(indexedTokensOf(old));
    const after = indexedTokensOf(value);
    const kept = new Set(after.filter((t) => before.has(t)));
    this.deleteTokens(
      db,
      at,
      [...before].filter((t) => !kept.has(t)),
    );
    this.insertTokens(
      db,
      at,
      after.filter((t) => !kept.has(t)),
    );
    this.deleteOptions(db, at, old);
    this.insertOptions(db, at, value);
  }

  private insertTokens(db: Database.Database, at: ValueAt, tokens: readonly string[]) {
    const token = cachedStatement(
      db,
      'INSERT OR IGNORE INTO search_tokens (hub_id, object_type_id, property, token, id) VALUES (?, ?, ?, ?, ?)',
    );
    for (const t of tokens) token.run(at.hubId, at.type, at.property, t, at.id);
  }

  private deleteTokens(db: Database.Database, at: ValueAt, tokens: readonly string[]) {
    const token = cachedStatement(
      db,
      'DELETE FROM search_tokens WHERE hub_id = ? AND object_type_id = ? AND property = ? AND token = ? AND id = ?',
    );
    for (const t of tokens) token.run(at.hubId, at.type, at.property, t, at.id);
  }

  private insertOptions(db: Database.Database, at: ValueAt, value: string) {
    if (!hasSeveralOptions(value)) return;
    const option = cachedStatement(
      db,
      'INSERT OR IGNORE INTO search_options (hub_id, object_type_id, property, option, id) VALUES (?, ?, ?, ?, ?)',
    );
    for (const o of optionsOf(value)) option.run(at.hubId, at.type, at.property, o, at.id);
  }

  private deleteOptions(db: Database.Database, at: ValueAt, old: string) {
    if (!hasSeveralOptions(old)) return;
    cachedStatement(
      db,
      'DELETE FROM search_options WHERE hub_id = ? AND object_type_id = ? AND property = ? AND id = ?',
    ).run(at.hubId, at.type, at.property, at.id);
  }

  private index(
    db: Database.Database,
    d: { hubId: number; objectTypeId: string; id: number; properties: Record<string, string>; createdAt: number },
    updatedAt: number,
  ): void {
    const doc = [d.hubId, d.objectTypeId, d.id, d.createdAt, updatedAt];
    const insert = 'INTO search_docs (hub_id, object_type_id, id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)';
    // The usual create finds no document (no lookup first). Made again (an id voided and reused):
    // what was there stops being indexed now.
    if (cachedStatement(db, `INSERT OR IGNORE ${insert}`).run(...doc).changes === 0) {
      this.retire(db, d.hubId, d.objectTypeId, d.id, updatedAt);
      cachedStatement(db, `INSERT ${insert}`).run(...doc);
    }
    this.count(db, d.hubId, d.objectTypeId, d.id, 1);
    const system = systemNamesOf(d.objectTypeId);
    for (const [property, value] of Object.entries(d.properties)) {
      if (value !== '' && !system.has(property)) {
        this.insertValue(db, { hubId: d.hubId, type: d.objectTypeId, id: d.id, property }, value);
      }
    }
  }

  /** Keeps the live records' counts: per account and type, and per bucket of ids (id-range totals). */
  private count(db: Database.Database, hubId: number, type: string, id: number, by: 1 | -1) {
    cachedStatement(
      db,
      `INSERT INTO search_counts (hub_id, object_type_id, docs) VALUES (?, ?, ?)
       ON CONFLICT (hub_id, object_type_id) DO UPDATE SET docs = docs + excluded.docs`,
    ).run(hubId, type, by);
    cachedStatement(
      db,
      `INSERT INTO search_id_buckets (hub_id, object_type_id, bucket, docs) VALUES (?, ?, ?, ?)
       ON CONFLICT (hub_id, object_type_id, bucket) DO UPDATE SET docs = docs + excluded.docs`,
    ).run(hubId, type, Math.floor(id / ID_BUCKET_SIZE), by);
  }

  /**
   * The record stops being indexed at `at` (archived, merged, made again): its document and values
   * are kept as past versions (for searches with a lag), then removed.
   */
  private retire(db: Database.Database, hubId: number, type: string, id: number, at: number) {
    const doc = cachedStatement(
      db,
      'SELECT created_at, updated_at FROM search_docs WHERE hub_id = ? AND object_type_id = ? AND id = ?',
    ).get(hubId, type, id) as { created_at: number; updated_at: number } | undefined;
    if (!doc) return;
    const lag = historyLagOf(db, hubId);
    if (lag === null) {
      this.remove(db, hubId, type, id);
      return;
    }
    pruneSearchHistory(db, hubId, at, lag);
    keepDocVersion(db, hubId, type, id, doc, at);
    const values = cachedStatement(
      db,
      'SELECT property, value FROM search_values INDEXED BY search_values_record WHERE hub_id = ? AND object_type_id = ? AND id = ?',
    ).all(hubId, type, id) as Array<{ property: string; value: string }>;
    for (const v of values) keepValueVersion(db, hubId, type, id, v.property, v.value, doc.created_at, at);
    this.remove(db, hubId, type, id);
  }

  /** Removes a record from every table (nothing when it is not there: the common case of a create). */
  private remove(db: Database.Database, hubId: number, type: string, id: number) {
    const doc = cachedStatement(db, 'DELETE FROM search_docs WHERE hub_id = ? AND object_type_id = ? AND id = ?').run(
      hubId,
      type,
      id,
    );
    if (doc.changes === 0) return;
    this.count(db, hubId, type, id, -1);
    // By the record's own index: without statistics SQLite would take the primary key's (account,
    // type) prefix and walk every value of the account.
    for (const table of [
      'search_values INDEXED BY search_values_record',
      'search_tokens INDEXED BY search_tokens_record',
      'search_options INDEXED BY search_options_record',
    ]) {
      cachedStatement(db, `DELETE FROM ${table} WHERE hub_id = ? AND object_type_id = ? AND id = ?`).run(
        hubId,
        type,
        id,
      );
    }
  }
}
