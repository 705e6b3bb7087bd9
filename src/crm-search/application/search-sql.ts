import type { ValueKind } from '../domain/search-values';

/**
 * The SQL pieces the search compiler and its filter files share (search-compiler.ts compiles a request;
 * search-option-filters.ts and search-association-filter.ts compile their filters; search-as-of.ts
 * names the tables a lagged search reads). Here so that none of them imports another in a circle.
 */
export type SqlParam = string | number;

export interface SqlStatement {
  sql: string;
  params: SqlParam[];
}

/** The names a compiled search reads its documents, values, tokens and options from. */
export interface SearchTables {
  docs: string;
  values: string;
  tokens: string;
  options: string;
  /** A `WITH` clause the statements start with (search-as-of.ts's views), and its parameters; empty: none. */
  prefix: string;
  prefixParams: SqlParam[];
}

/** Where a search looks and how it reads values: the account and type, each property's kind, the lag. */
export interface SearchScope {
  hubId: number;
  objectTypeId: string;
  kindOf(property: string): ValueKind;
  /** The properties `query` looks in. */
  searchable: readonly string[];
  /** The index as of this time (the search lag control: search-as-of.ts); null: as it is now. */
  visibleAsOf: number | null;
  /** For `associations.{type}` pseudo-properties: the object type id they name (else undefined). */
  associationTarget?(property: string): string | undefined;
  /** The properties whose values the results show. */
  shown: readonly string[];
}

export interface Condition {
  sql: string;
  params: SqlParam[];
  /** The same test as a per-row probe (correlated EXISTS), for walks; absent: the condition is row-local. */
  probe?: Condition;
  /** A single filter that is "in" or "not in" one set of ids: what the total can count without the documents. */
  set?: { of: IdSet; negated: boolean };
  /** A range of the record id, inclusive (bounds may be infinite): counted by id buckets. */
  ids?: { lo: number; hi: number };
}

/**
 * Ids from one index range of a read-model table (`where` without the account and type). `unique`: at
 * most one row per record (search_values has one per record and property; search_tokens one per
 * property, token and record, so one exact token of one property), so COUNT(*) counts records.
 */
export interface IdSet {
  /** The read model's values or tokens (as of the lag, when there is one: `scope.tables`). */
  table: 'values' | 'tokens';
  where: Condition;
  unique: boolean;
  /** A set of one property's values: the property and the test on its `lower` or `num` (none: any value). */
  values?: { property: string; predicate?: Condition };
}

/** A search's scope with the tables it reads (the index now, or as of the lag). */
export type ScopeWithTables = SearchScope & { tables: SearchTables };

/** For the option and association filters (no counting shortcut): the ids as a plain SELECT. */
export function valuesOf(scope: ScopeWithTables, property: string, predicate?: Condition): Condition {
  return {
    sql:
      `SELECT id FROM ${scope.tables.values} WHERE hub_id = ? AND object_type_id = ? AND property = ?` +
      (predicate ? ` AND ${predicate.sql}` : ''),
    params: [scope.hubId, scope.objectTypeId, property, ...(predicate?.params ?? [])],
  };
}

export const having = (set: Condition): Condition => ({ sql: `d.id IN (${set.sql})`, params: set.params });
export const without = (set: Condition): Condition => ({ sql: `d.id NOT IN (${set.sql})`, params: set.params });
