import type Database from 'better-sqlite3';
import { cachedStatement } from '../../platform/projections/statement-cache';
import type { SearchFilter } from '../domain/search-request';
import { CURRENT_TABLES } from './search-as-of';
import { groupConditions } from './search-compiler';
import type { Condition, SearchScope, SqlParam } from './search-sql';

/**
 * A set with fewer rows than this is small: it drives the page, and the total is counted exactly.
 * Each of its records costs a probe per other condition (about 10 µs for a word: one seek per
 * searchable property), and this runs on the caller's thread: bounded to tens of milliseconds.
 */
export const SMALL_SET = 3_000;
/** With no small set, the page walks at most this many records in id order (then says where to continue). */
export const ID_WALK_BUDGET = 5_000;

export interface IdPageRows {
  rows: Array<{ id: number; created_at: number; updated_at: number }>;
  values: Array<{ id: number; property: string; value: string }>;
  /** The id to continue after; null when no record after the page matches. */
  next: number | null;
  /** The exact number of matches, when it was cheap to count (a small set drove the page); else null. */
  total: number | null;
}

/**
 * A page of one filter group's matches in id order, keyset by id (`afterId`), without the total when
 * counting it would cost what the page does not need: CRM search's `total` counts every match, and for
 * words that most records have (`bench`, `com`) it materialises each of their id sets. Here each
 * positive set is counted up to SMALL_SET rows; the smallest, when small, drives the page (its ids
 * probed against the other conditions, each one lookup by the record's key) and the total is exact;
 * otherwise the page walks the documents in id order with every condition probed, at most
 * ID_WALK_BUDGET of them. Reads the current index (no search lag: the caller runs the search instead).
 */
export function readIdPage(
  db: Database.Database,
  scope: SearchScope,
  filters: readonly SearchFilter[],
  terms: readonly string[],
  afterId: number,
  limit: number,
  bounds: { smallSet: number; walkBudget: number } = { smallSet: SMALL_SET, walkBudget: ID_WALK_BUDGET },
): IdPageRows {
  const withTables = { ...scope, tables: CURRENT_TABLES };
  const conditions = groupConditions(filters, terms, withTables);
  const base: Condition = { sql: 'd.hub_id = ? AND d.object_type_id = ?', params: [scope.hubId, scope.objectTypeId] };
  const sized = conditions
    .filter((c) => c.set !== undefined && !c.set.negated)
    .map((c) => ({ c, rows: cappedRows(db, scope, c, bounds.smallSet) }))
    .sort((a, b) => a.rows - b.rows);
  const driver = sized[0] !== undefined && sized[0].rows < bounds.smallSet ? sized[0].c : undefined;
  const probes = conditions.filter((c) => c !== driver).map((c) => c.probe ?? c);
  const run = db.transaction((): IdPageRows => {
    let rows: IdPageRows['rows'];
    let next: number | null = null;
    let total: number | null = null;
    if (driver) {
      // Every match, fewer than the driver's rows: one statement for the total and the page (the
      // page's order needs each match probed anyway).
      const all = page(db, and([base, driver, ...probes]), bounds.smallSet);
      total = all.length;
      const from = all.findIndex((r) => r.id > afterId);
      rows = from < 0 ? [] : all.slice(from, from + limit + 1);
    } else {
      const window = cachedStatement(
        db,
        `SELECT MAX(id) AS hi, COUNT(*) AS n FROM (SELECT id FROM search_docs
         WHERE hub_id = ? AND object_type_id = ? AND id > ? ORDER BY id LIMIT ?)`,
      ).get(scope.hubId, scope.objectTypeId, afterId, bounds.walkBudget) as { hi: number | null; n: number };
      rows =
        window.hi === null
          ? []
          : page(
              db,
              and([base, { sql: 'd.id > ? AND d.id <= ?', params: [afterId, window.hi] }, ...probes]),
              limit + 1,
            );
      // The walk's window ended before the page filled: later records may still match.
      if (rows.length <= limit && window.n === bounds.walkBudget) next = window.hi;
    }
    if (rows.length > limit) {
      rows = rows.slice(0, limit);
      next = rows.at(-1)!.id;
    }
    return { rows, values: valuesOf(db, scope, rows), next, total };
  });
  return run();
}

/** The set's rows in the account and type, counted up to `cap` (an index range read at most that far). */
function cappedRows(db: Database.Database, scope: SearchScope, c: Condition, cap: number): number {
  const set = c.set!.of;
  const row = cachedStatement(
    db,
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${CURRENT_TABLES[set.table]}
     WHERE hub_id = ? AND object_type_id = ? AND ${set.where.sql} LIMIT ?)`,
  ).get(scope.hubId, scope.objectTypeId, ...set.where.params, cap) as { n: number };
  return row.n;
}

function page(db: Database.Database, where: Condition, limit: number): IdPageRows['rows'] {
  return cachedStatement(
    db,
    `SELECT d.id AS id, d.created_at AS created_at, d.updated_at AS updated_at FROM search_docs d
     WHERE ${where.sql} ORDER BY d.id LIMIT ?`,
  ).all(...where.params, limit) as IdPageRows['rows'];
}

function valuesOf(db: Database.Database, scope: SearchScope, rows: IdPageRows['rows']): IdPageRows['values'] {
  if (rows.length === 0 || scope.shown.length === 0) return [];
  const params: SqlParam[] = [scope.hubId, scope.objectTypeId, ...scope.shown, ...rows.map((r) => r.id)];
  return cachedStatement(
    db,
    `SELECT id, property, value FROM search_values WHERE hub_id = ? AND object_type_id = ?
     AND property IN (${scope.shown.map(() => '?').join(', ')}) AND id IN (${rows.map(() => '?').join(', ')})`,
  ).all(...params) as IdPageRows['values'];
}

function and(conditions: Condition[]): Condition {
  return { sql: conditions.map((c) => c.sql).join(' AND '), params: conditions.flatMap((c) => c.params) };
}
