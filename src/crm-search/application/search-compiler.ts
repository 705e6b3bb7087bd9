import { blankToken, notANumberOrDate } from '../domain/search-errors';
import type { SearchFilter, SearchRequest, SearchSort } from '../domain/search-request';
import { searchTypeTraits } from './search-types';
import { lowerOf, numericOf, tokenPatternOf, type ValueKind } from '../domain/search-values';
import { CURRENT_TABLES, type SearchTables, tablesAsOf } from './search-as-of';
import { associationCondition } from './search-association-filter';
import { optionsCondition } from './search-option-filters';

export type SqlParam = string | number;

export interface SqlStatement {
  sql: string;
  params: SqlParam[];
}

/** What a search runs, in one read transaction: the exact total, the page's ids, then their values. */
export interface SearchJob {
  total: SqlStatement;
  page: SqlStatement;
  /** `/*IDS*\/` stands for the page's ids' placeholders; the ids follow `params`. */
  values: SqlStatement;
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
}

/** A search's scope with the tables it reads (the index now, or as of the lag). */
export type ScopeWithTables = SearchScope & { tables: SearchTables };

const ID = 'hs_object_id';
const IDS = '/*IDS*/';

/**
 * Compiles a search into SQL over the search read model (projections/crm-search.projection.ts).
 * The plan, chosen for what SQLite does well:
 * - a filter group is one SELECT over `search_docs`; each positive filter a semi-join
 *   `d.id IN (SELECT id FROM search_values WHERE <index range>)`, materialised once and probed (SQLite
 *   drives the group from the most selective one through the primary key), each negation an anti-join
 *   `d.id NOT IN (...)` against the set it excludes, materialised once — never a correlated
 *   NOT EXISTS per row;
 * - several groups are a UNION of their id sets (one index plan each), not one WHERE of ORs, which
 *   SQLite can only answer by scanning;
 * - `hs_object_id` compares the documents' own key (keyset paging by `hs_object_id GT` is a range);
 * - the total is counted over the same set; the page sorts it, missing values last, then by id.
 */
export function compileSearch(request: SearchRequest, searchScope: SearchScope): SearchJob {
  const tables = searchScope.visibleAsOf === null ? CURRENT_TABLES : tablesAsOf(searchScope.visibleAsOf);
  const scope: ScopeWithTables = { ...searchScope, tables };
  const groups = request.filterGroups.length > 0 ? request.filterGroups : [[]];
  const compiled = groups.map((filters) => groupConditions(filters, request.queryTerms, scope));
  const base: Condition = { sql: 'd.hub_id = ? AND d.object_type_id = ?', params: [scope.hubId, scope.objectTypeId] };

  let where: Condition;
  let candidates: Condition;
  if (compiled.length === 1) {
    where = and([base, ...compiled[0]!]);
    candidates = { sql: `SELECT d.id AS id FROM ${tables.docs} d WHERE ${where.sql}`, params: where.params };
  } else {
    const selects = compiled.map((conds) => and([base, ...conds]));
    candidates = {
      sql: selects
        .map((s) => `SELECT id FROM (SELECT d.id AS id FROM ${tables.docs} d WHERE ${s.sql})`)
        .join(' UNION '),
      params: selects.flatMap((s) => s.params),
    };
    where = { sql: `${base.sql} AND d.id IN (${candidates.sql})`, params: [...base.params, ...candidates.params] };
  }

  const total: SqlStatement = {
    sql: `${tables.prefix}SELECT COUNT(*) AS total FROM (${candidates.sql})`,
    params: [...tables.prefixParams, ...candidates.params],
  };

  const joins: Condition[] = [];
  const order: string[] = [];
  request.sorts.forEach((sort, i) => sortTerms(sort, i, scope, joins, order));
  order.push('d.id ASC');
  const page: SqlStatement = {
    sql:
      `${tables.prefix}SELECT d.id AS id, d.created_at AS created_at, d.updated_at AS updated_at FROM ${tables.docs} d` +
      joins.map((j) => ` ${j.sql}`).join('') +
      ` WHERE ${where.sql} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`,
    params: [...tables.prefixParams, ...joins.flatMap((j) => j.params), ...where.params, request.limit, request.after],
  };

  const values: SqlStatement = {
    sql:
      `${tables.prefix}SELECT id, property, value FROM ${tables.values} WHERE hub_id = ? AND object_type_id = ?` +
      ` AND property IN (${scope.shown.map(() => '?').join(', ')}) AND id IN (${IDS})`,
    params: [...tables.prefixParams, scope.hubId, scope.objectTypeId, ...scope.shown],
  };
  return { total, page, values };
}

export const PAGE_IDS_PLACEHOLDER = IDS;

function and(conditions: Condition[]): Condition {
  return { sql: conditions.map((c) => c.sql).join(' AND '), params: conditions.flatMap((c) => c.params) };
}

function groupConditions(
  filters: readonly SearchFilter[],
  terms: readonly string[],
  scope: ScopeWithTables,
): Condition[] {
  const conditions: Condition[] = [];
  for (const filter of filters) conditions.push(filterCondition(filter, scope));
  for (const term of terms) conditions.push(queryTermCondition(term, scope));
  return conditions;
}

/** The values of `property` that satisfy `predicate`: an index range of `search_values`. */
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

function filterCondition(filter: SearchFilter, scope: ScopeWithTables): Condition {
  const { propertyName: p } = filter;
  const target = scope.associationTarget?.(p);
  if (target !== undefined) return associationCondition(filter, target, scope);
  const kind = p === ID ? 'number' : scope.kindOf(p);
  if (kind === 'options') return optionsCondition(filter, scope);
  const column = kind === 'number' ? 'num' : 'lower';
  const operand = (value: string): SqlParam => operandOf(value, kind, p);
  // The record's own id: a range of the documents' key.
  const onId = p === ID;
  const compare = (op: string, value: string): Condition =>
    onId
      ? { sql: `d.id ${op} ?`, params: [operand(value)] }
      : having(valuesOf(scope, p, { sql: `${column} ${op} ?`, params: [operand(value)] }));
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return onId ? { sql: '1', params: [] } : having(valuesOf(scope, p));
    case 'NOT_HAS_PROPERTY':
      return onId ? { sql: '0', params: [] } : without(valuesOf(scope, p));
    case 'EQ':
      return compare('=', filter.value);
    case 'NEQ':
      return onId
        ? { sql: 'd.id != ?', params: [operand(filter.value)] }
        : without(valuesOf(scope, p, { sql: `${column} = ?`, params: [operand(filter.value)] }));
    case 'LT':
      return compare('<', filter.value);
    case 'LTE':
      return compare('<=', filter.value);
    case 'GT':
      return compare('>', filter.value);
    case 'GTE':
      return compare('>=', filter.value);
    case 'BETWEEN': {
      const params = [operand(filter.value), operand(filter.highValue)];
      return onId
        ? { sql: 'd.id BETWEEN ? AND ?', params }
        : having(valuesOf(scope, p, { sql: `${column} BETWEEN ? AND ?`, params }));
    }
    case 'IN':
    case 'NOT_IN': {
      const params = [...new Set(filter.values.map(operand))];
      const list = params.map(() => '?').join(', ');
      if (onId) return { sql: `d.id ${filter.operator === 'IN' ? 'IN' : 'NOT IN'} (${list})`, params };
      const set = valuesOf(scope, p, { sql: `${column} IN (${list})`, params });
      return filter.operator === 'IN' ? having(set) : without(set);
    }
    case 'CONTAINS_TOKEN':
    case 'NOT_CONTAINS_TOKEN': {
      const pattern = tokenPatternOf(filter.value);
      if (!pattern) {
        throw blankToken(filter.operator);
      }
      const set: Condition = {
        sql:
          `SELECT id FROM ${scope.tables.tokens} WHERE hub_id = ? AND object_type_id = ? AND property = ? AND ` +
          ('exact' in pattern ? 'token = ?' : 'token GLOB ?'),
        params: [scope.hubId, scope.objectTypeId, p, 'exact' in pattern ? pattern.exact : pattern.glob],
      };
      return filter.operator === 'CONTAINS_TOKEN' ? having(set) : without(set);
    }
  }
}

/** One word of `query`: some default searchable property has a token it begins. */
function queryTermCondition(term: string, scope: ScopeWithTables): Condition {
  if (scope.searchable.length === 0) return { sql: '0', params: [] };
  const glob = `${term.replace(/[*?[\]]/g, (c) => `[${c}]`)}*`;
  return having({
    sql:
      `SELECT id FROM ${scope.tables.tokens} WHERE hub_id = ? AND object_type_id = ?` +
      ` AND property IN (${scope.searchable.map(() => '?').join(', ')}) AND token GLOB ?`,
    params: [scope.hubId, scope.objectTypeId, ...scope.searchable, glob],
  });
}

function sortTerms(sort: SearchSort, i: number, scope: ScopeWithTables, joins: Condition[], order: string[]): void {
  const direction = sort.direction === 'DESCENDING' ? 'DESC' : 'ASC';
  if (sort.propertyName === ID) {
    order.push(`d.id ${direction}`);
    return;
  }
  // The create and last-modified dates every record has are its document's own columns: no join.
  const traits = searchTypeTraits(scope.objectTypeId);
  if (sort.propertyName === traits.createdProperty || sort.propertyName === traits.modifiedProperty) {
    order.push(`d.${sort.propertyName === traits.createdProperty ? 'created_at' : 'updated_at'} ${direction}`);
    return;
  }
  const alias = `s${i}`;
  const column = `${alias}.${scope.kindOf(sort.propertyName) === 'number' ? 'num' : 'lower'}`;
  joins.push({
    sql:
      `LEFT JOIN ${scope.tables.values} ${alias} ON ${alias}.hub_id = d.hub_id AND ${alias}.object_type_id = d.object_type_id` +
      ` AND ${alias}.property = ? AND ${alias}.id = d.id`,
    params: [sort.propertyName],
  });
  // Records without the value come last, whichever the direction.
  order.push(`(${column} IS NULL)`, `${column} ${direction}`);
}

export function operandOf(value: string, kind: ValueKind, property: string): SqlParam {
  if (kind !== 'number') return lowerOf(value);
  const n = numericOf(value);
  if (n === null) {
    throw notANumberOrDate(value, property);
  }
  return n;
}
