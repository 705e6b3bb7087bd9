import { blankToken, notANumberOrDate } from '../domain/search-errors';
import type { SearchFilter, SearchRequest, SearchSort } from '../domain/search-request';
import { searchTypeTraits } from './search-types';
import { ID_BUCKET_SIZE } from '../domain/search-values';
import { lowerOf, numericOf, tokenPatternOf, type ValueKind } from '../domain/search-values';
import { CURRENT_TABLES, tablesAsOf } from './search-as-of';
import type { Condition, IdSet, ScopeWithTables, SearchScope, SqlParam, SqlStatement } from './search-sql';
import { associationCondition } from './search-association-filter';
import { optionsCondition } from './search-option-filters';

/**
 * What a search runs, in one read transaction: the exact total, the page's ids (by one of two plans,
 * chosen on the total: search-reader.ts), then their values.
 */
export interface SearchJob {
  total: SqlStatement;
  /** The page by sorting every match (the plan for few matches). Its last params: limit, offset. */
  page: SqlStatement;
  /** The page by walking an index in the page's order, stopping after `after + limit` matches. */
  walk?: PageWalk;
  /** How many live records of the type the account has (what the plan choice weighs the total against). */
  docs: SqlStatement;
  window: { after: number; limit: number };
  /** `/*IDS*\/` stands for the page's ids' placeholders; the ids follow `params`. */
  values: SqlStatement;
  /** How the page's records are shown (built on the search thread: search-reader.ts). */
  shape: ResultShape;
}

/** How a page's records are shown: HubSpot's SimplePublicObject as search answers it. */
export interface ResultShape {
  /** The properties each result shows, in this order; null for one without a value. */
  shown: readonly string[];
  /** The names of the type's create and last-modified dates (system values, as `hs_object_id`). */
  created: string;
  modified: string;
}

/**
 * A page read along an ordered index with each filter probed per row (correlated EXISTS on the value's
 * key), so it visits about `(after + limit) × docs / total` rows instead of every match. `complete`:
 * false when the walk covers only the records that have the sort value (those come first in either
 * direction); a short page then means the rest lies among the records without it, and the page plan
 * answers instead.
 */
export interface PageWalk extends SqlStatement {
  complete: boolean;
  /** Every row the walk reads matches (its index range is the search's one filter): always the cheaper plan. */
  exact?: boolean;
}

const ID = 'hs_object_id';
const IDS = '/*IDS*/';
/** Ids per bucket of the projection's id-range counts (search_id_buckets); the projection's constant. */
const ID_BUCKET = ID_BUCKET_SIZE;

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

  // Under a lag the index is read as of a past time (views over current and past versions): the
  // counters and the ordered walks describe the current index only, so the general plans answer.
  const lagged = tables !== CURRENT_TABLES;
  const docs = docsCount(scope);
  const total = (lagged ? null : countOf(compiled, scope)) ?? {
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

  const traitsOf = searchTypeTraits(scope.objectTypeId);
  // The id and the two dates are shaped from the page's rows (shapeSearchResults): reading their
  // values too was half the lookups (each shown property × each id is one b-tree probe).
  const derived = new Set([ID, traitsOf.createdProperty, traitsOf.modifiedProperty]);
  const read = scope.shown.filter((name) => !derived.has(name));
  const values: SqlStatement = {
    sql:
      `${tables.prefix}SELECT id, property, value FROM ${tables.values} WHERE hub_id = ? AND object_type_id = ?` +
      ` AND property IN (${read.map(() => '?').join(', ')}) AND id IN (${IDS})`,
    params: [...tables.prefixParams, scope.hubId, scope.objectTypeId, ...read],
  };
  const walk = lagged ? undefined : walkOf(request, scope, compiled);
  return {
    total,
    page,
    ...(walk ? { walk } : {}),
    docs: { sql: `SELECT ${docs.sql} AS docs`, params: docs.params },
    window: { after: request.after, limit: request.limit },
    values,
    shape: { shown: scope.shown, created: traitsOf.createdProperty, modified: traitsOf.modifiedProperty },
  };
}

/**
 * The total without visiting the documents, where one set decides it: a group of one filter (no lag,
 * no `query`) counts its set on the value index (a negation: the type's live records minus it); a group
 * without filters is every live record. Null: the general count over the documents.
 */
function countOf(compiled: Condition[][], scope: ScopeWithTables): SqlStatement | null {
  if (compiled.length !== 1) return null;
  const [only, ...more] = compiled[0]!;
  const docs = docsCount(scope);
  if (!only) return { sql: `SELECT ${docs.sql} AS total`, params: docs.params };
  if (more.length === 0 && only.ids) return idRangeCount(scope, only.ids.lo, only.ids.hi);
  if (more.length > 0 || !only.set) return null;
  const { of, negated } = only.set;
  // A set with several rows per record (a wildcard's tokens, `query`) counts its distinct ids; `+id`
  // keeps SQLite on the token range (by plain `id` it walks the account's whole record index in id
  // order for the DISTINCT: 0.8 s over 100,000 contacts instead of 3 ms).
  const set = setSelect(scope, of, of.unique ? 'id' : 'DISTINCT +id');
  const from = `FROM (${set.sql})`;
  if (!negated) return { sql: `SELECT COUNT(*) AS total ${from}`, params: set.params };
  return { sql: `SELECT ${docs.sql} - (SELECT COUNT(*) ${from}) AS total`, params: [...docs.params, ...set.params] };
}

/**
 * The number of live records with an id in [lo, hi] (keyset paging's `hs_object_id GT`): the
 * projection's per-bucket counts (ID_BUCKET ids a bucket) for the buckets inside the range, the
 * documents' key for the two partial buckets at its ends — at most 2 × ID_BUCKET rows, however wide.
 */
function idRangeCount(scope: SearchScope, lo: number, hi: number): SqlStatement {
  if (lo > hi) return { sql: 'SELECT 0 AS total', params: [] };
  const account = [scope.hubId, scope.objectTypeId];
  const docsIn = (from: number, to: number): Condition => ({
    sql: '(SELECT COUNT(*) FROM search_docs WHERE hub_id = ? AND object_type_id = ? AND id BETWEEN ? AND ?)',
    params: [...account, from, to],
  });
  const loBucket = Number.isFinite(lo) ? Math.floor(lo / ID_BUCKET) : null;
  const hiBucket = Number.isFinite(hi) ? Math.floor(hi / ID_BUCKET) : null;
  if (loBucket !== null && loBucket === hiBucket) {
    const only = docsIn(lo, hi);
    return { sql: `SELECT ${only.sql} AS total`, params: only.params };
  }
  const terms: Condition[] = [];
  const buckets: Condition = {
    sql: 'SELECT COALESCE(SUM(docs), 0) FROM search_id_buckets WHERE hub_id = ? AND object_type_id = ?',
    params: [...account],
  };
  if (loBucket !== null) {
    terms.push(docsIn(lo, (loBucket + 1) * ID_BUCKET - 1));
    buckets.sql += ' AND bucket > ?';
    buckets.params.push(loBucket);
  }
  if (hiBucket !== null) {
    terms.push(docsIn(hiBucket * ID_BUCKET, hi));
    buckets.sql += ' AND bucket < ?';
    buckets.params.push(hiBucket);
  }
  terms.push({ sql: `(${buckets.sql})`, params: buckets.params });
  return { sql: `SELECT ${terms.map((t) => t.sql).join(' + ')} AS total`, params: terms.flatMap((t) => t.params) };
}

/** How many live records of the type the account has: the projection's counter (search_counts). */
function docsCount(scope: SearchScope): Condition {
  return {
    sql: 'COALESCE((SELECT docs FROM search_counts WHERE hub_id = ? AND object_type_id = ?), 0)',
    params: [scope.hubId, scope.objectTypeId],
  };
}

/**
 * The walk for the page (PageWalk): with no sort or a sort on the id, along the documents' key; on the
 * create or last-modified date, along that column's index; on one other property, along its values'
 * index (records with the value only). Several sort keys: no walk.
 */
function walkOf(request: SearchRequest, scope: SearchScope, compiled: Condition[][]): PageWalk | undefined {
  if (request.sorts.length > 1) return undefined;
  const probes = compiled.map((conds) => and(conds.map((c) => c.probe ?? c)));
  const matches: Condition =
    probes.length === 1
      ? probes[0]!
      : { sql: probes.map((p) => `(${p.sql || '1'})`).join(' OR '), params: probes.flatMap((p) => p.params) };
  const filter = matches.sql ? ` AND (${matches.sql})` : '';
  const columns = 'SELECT d.id AS id, d.created_at AS created_at, d.updated_at AS updated_at';
  const window = [request.limit, request.after];
  const sort = request.sorts[0];
  const direction = sort?.direction === 'DESCENDING' ? 'DESC' : 'ASC';
  const traits = searchTypeTraits(scope.objectTypeId);
  const base = 'd.hub_id = ? AND d.object_type_id = ?';
  if (!sort || sort.propertyName === ID) {
    return {
      sql: `${columns} FROM search_docs d WHERE ${base}${filter} ORDER BY d.id ${sort ? direction : 'ASC'} LIMIT ? OFFSET ?`,
      params: [scope.hubId, scope.objectTypeId, ...matches.params, ...window],
      complete: true,
    };
  }
  if (sort.propertyName === traits.createdProperty || sort.propertyName === traits.modifiedProperty) {
    const [column, index] =
      sort.propertyName === traits.createdProperty
        ? ['created_at', 'search_docs_created']
        : ['updated_at', 'search_docs_updated'];
    return {
      sql:
        `${columns} FROM search_docs d INDEXED BY ${index} WHERE ${base}${filter}` +
        ` ORDER BY d.${column} ${direction}, d.id ASC LIMIT ? OFFSET ?`,
      params: [scope.hubId, scope.objectTypeId, ...matches.params, ...window],
      complete: true,
    };
  }
  const numeric = scope.kindOf(sort.propertyName) === 'number';
  const column = numeric ? 'num' : 'lower';
  // One group with a positive comparison on the sort property: every match has the value (the walk
  // covers them all), and the comparison's range of the index is where the walk starts and ends. (Not
  // HAS_PROPERTY: a number property's value that is not a number has none in `num`, yet has the property.)
  const own =
    compiled.length === 1
      ? compiled[0]!.find(
          (c) =>
            c.set && !c.set.negated && c.set.of.values?.property === sort.propertyName && c.set.of.values.predicate,
        )
      : undefined;
  const range = own?.set?.of.values?.predicate;
  // Its only filter: each row of the range is a match, the walk reads just `after + limit` rows, and
  // probing each row for the filter again (a correlated lookup per row) would only repeat the range.
  const exact = own !== undefined && compiled[0]!.length === 1;
  return {
    sql:
      `${columns} FROM search_values s INDEXED BY search_values_${column} CROSS JOIN search_docs d` +
      ` WHERE s.hub_id = ? AND s.object_type_id = ? AND s.property = ?${numeric ? ' AND s.num IS NOT NULL' : ''}` +
      (range ? ` AND s.${range.sql}` : '') +
      ` AND d.hub_id = s.hub_id AND d.object_type_id = s.object_type_id AND d.id = s.id${exact ? '' : filter}` +
      ` ORDER BY s.${column} ${direction}, s.id ASC LIMIT ? OFFSET ?`,
    params: [
      scope.hubId,
      scope.objectTypeId,
      sort.propertyName,
      ...(range?.params ?? []),
      ...(exact ? [] : matches.params),
      ...window,
    ],
    complete: own !== undefined,
    ...(exact ? { exact: true } : {}),
  };
}

export const PAGE_IDS_PLACEHOLDER = IDS;

function and(conditions: Condition[]): Condition {
  return { sql: conditions.map((c) => c.sql).join(' AND '), params: conditions.flatMap((c) => c.params) };
}

/** One filter group and the `query` words as conditions on the documents `d` (also the id page's: search-id-page.ts). */
export function groupConditions(
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
function valueSet(property: string, predicate?: Condition): IdSet {
  return {
    table: 'values',
    where: {
      sql: 'property = ?' + (predicate ? ` AND ${predicate.sql}` : ''),
      params: [property, ...(predicate?.params ?? [])],
    },
    unique: true,
    values: { property, ...(predicate ? { predicate } : {}) },
  };
}

/** The set as a SELECT of ids (or of `what` over them) in the account and type. */
function setSelect(scope: ScopeWithTables, set: IdSet, what = 'id'): Condition {
  return {
    sql: `SELECT ${what} FROM ${scope.tables[set.table]} WHERE hub_id = ? AND object_type_id = ? AND ${set.where.sql}`,
    params: [scope.hubId, scope.objectTypeId, ...set.where.params],
  };
}

/** Whether the row `d` is in the set: one lookup by the record's key (walks read the current index only). */
function probeOf(set: IdSet, negated: boolean): Condition {
  return {
    sql:
      `${negated ? 'NOT ' : ''}EXISTS (SELECT 1 FROM search_${set.table} x WHERE x.hub_id = d.hub_id` +
      ` AND x.object_type_id = d.object_type_id AND x.id = d.id AND ${set.where.sql})`,
    params: set.where.params,
  };
}

function havingSet(scope: ScopeWithTables, set: IdSet): Condition {
  const s = setSelect(scope, set);
  return { sql: `d.id IN (${s.sql})`, params: s.params, probe: probeOf(set, false), set: { of: set, negated: false } };
}

function withoutSet(scope: ScopeWithTables, set: IdSet): Condition {
  const s = setSelect(scope, set);
  return {
    sql: `d.id NOT IN (${s.sql})`,
    params: s.params,
    probe: probeOf(set, true),
    set: { of: set, negated: true },
  };
}

function filterCondition(filter: SearchFilter, scope: ScopeWithTables): Condition {
  const { propertyName: p } = filter;
  const target = scope.associationTarget?.(p);
  if (target !== undefined) return associationCondition(filter, target, scope);
  // A system value is the document's own (its key, its create or modified date: every record has
  // them, and the projection keeps them nowhere else), compared there.
  const own = documentColumnOf(p, scope);
  const onId = p === ID;
  const kind = own ? 'number' : scope.kindOf(p);
  if (kind === 'options') return optionsCondition(filter, scope);
  const column = kind === 'number' ? 'num' : 'lower';
  const operand = (value: string): SqlParam => operandOf(value, kind, p);
  // The id's comparisons are a range of the documents' key (counted by the id buckets).
  const compare = (op: '<' | '<=' | '>' | '>=' | '=', value: string): Condition =>
    own
      ? { sql: `${own} ${op} ?`, params: [operand(value)], ...(onId ? idBounds(op, Number(operand(value))) : {}) }
      : havingSet(scope, valueSet(p, { sql: `${column} ${op} ?`, params: [operand(value)] }));
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return own ? { sql: '1', params: [] } : havingSet(scope, valueSet(p));
    case 'NOT_HAS_PROPERTY':
      return own ? { sql: '0', params: [] } : withoutSet(scope, valueSet(p));
    case 'EQ':
      return compare('=', filter.value);
    case 'NEQ':
      return own
        ? { sql: `${own} != ?`, params: [operand(filter.value)] }
        : withoutSet(scope, valueSet(p, { sql: `${column} = ?`, params: [operand(filter.value)] }));
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
      if (own) {
        const ids = { lo: Math.ceil(Number(params[0])), hi: Math.floor(Number(params[1])) };
        return { sql: `${own} BETWEEN ? AND ?`, params, ...(onId ? { ids } : {}) };
      }
      return havingSet(scope, valueSet(p, { sql: `${column} BETWEEN ? AND ?`, params }));
    }
    case 'IN':
    case 'NOT_IN': {
      const params = [...new Set(filter.values.map(operand))];
      const list = params.map(() => '?').join(', ');
      if (own) return { sql: `${own} ${filter.operator === 'IN' ? 'IN' : 'NOT IN'} (${list})`, params };
      const set = valueSet(p, { sql: `${column} IN (${list})`, params });
      return filter.operator === 'IN' ? havingSet(scope, set) : withoutSet(scope, set);
    }
    case 'CONTAINS_TOKEN':
    case 'NOT_CONTAINS_TOKEN': {
      const pattern = tokenPatternOf(filter.value);
      if (!pattern) {
        throw blankToken(filter.operator);
      }
      if (own) return tokenTest(textOf(own), pattern, filter.operator === 'NOT_CONTAINS_TOKEN');
      // A wildcard may match several tokens of one record: not unique.
      const set: IdSet = {
        table: 'tokens',
        where: {
          sql: 'property = ? AND ' + ('exact' in pattern ? 'token = ?' : 'token GLOB ?'),
          params: [p, 'exact' in pattern ? pattern.exact : pattern.glob],
        },
        unique: 'exact' in pattern,
      };
      return filter.operator === 'CONTAINS_TOKEN' ? havingSet(scope, set) : withoutSet(scope, set);
    }
  }
}

/** The document's column holding a system value (the id, the create or modified date); null: another property. */
function documentColumnOf(property: string, scope: SearchScope): string | null {
  if (property === ID) return 'd.id';
  const traits = searchTypeTraits(scope.objectTypeId);
  if (property === traits.createdProperty) return 'd.created_at';
  return property === traits.modifiedProperty ? 'd.updated_at' : null;
}

/**
 * A system value as the records module writes it, lower-cased (what its tokens come from): the id in
 * decimal, a date as toISOString's `2026-01-01t00:00:05.000z`.
 */
function textOf(column: string): string {
  if (column === 'd.id') return 'CAST(d.id AS TEXT)';
  return `lower(strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || printf('.%03dZ', ${column} % 1000))`;
}

/**
 * Whether a system value (`value`, an SQL expression over the document) has a token matching the
 * pattern: the projection writes no tokens for these. A value's tokens (search-values.ts tokensOf)
 * are the lower-cased value itself and its runs of letters and digits; an id or an ISO date-time has
 * no spaces, and its runs are the parts between `-`, `:`, `.` and `+`, which json_each lists from the
 * value rewritten as a JSON array. A test per document (no index range): a search nobody makes.
 */
function tokenTest(value: string, pattern: { exact: string } | { glob: string }, negated: boolean): Condition {
  const [test, operand] = 'exact' in pattern ? ['= ?', pattern.exact] : ['GLOB ?', pattern.glob];
  const parts = `json_each('["' || ${SEPARATORS.reduce((sql, c) => `replace(${sql}, '${c}', '","')`, value)} || '"]')`;
  return {
    sql: `${negated ? 'NOT ' : ''}(${value} ${test} OR EXISTS (SELECT 1 FROM ${parts} j WHERE j.value ${test}))`,
    params: [operand, operand],
  };
}

/** What separates the runs of letters and digits in an id or an ISO date-time. */
const SEPARATORS = ['-', ':', '.', '+'];

/** One word of `query`: some default searchable property has a token it begins. */
function queryTermCondition(term: string, scope: ScopeWithTables): Condition {
  if (scope.searchable.length === 0) return { sql: '0', params: [] };
  const glob = `${term.replace(/[*?[\]]/g, (c) => `[${c}]`)}*`;
  return havingSet(scope, {
    table: 'tokens',
    where: {
      sql: `property IN (${scope.searchable.map(() => '?').join(', ')}) AND token GLOB ?`,
      params: [...scope.searchable, glob],
    },
    unique: false,
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

/** The integer ids a comparison of the id admits (ids are integers; the operand may not be). */
function idBounds(op: '<' | '<=' | '>' | '>=' | '=', v: number): Pick<Condition, 'ids'> {
  if (op === '=') return {}; // one key lookup already
  const lo = op === '>' ? Math.floor(v) + 1 : op === '>=' ? Math.ceil(v) : -Infinity;
  const hi = op === '<' ? Math.ceil(v) - 1 : op === '<=' ? Math.floor(v) : Infinity;
  return { ids: { lo, hi } };
}

function operandOf(value: string, kind: ValueKind, property: string): SqlParam {
  if (kind !== 'number') return lowerOf(value);
  const n = numericOf(value);
  if (n === null) {
    throw notANumberOrDate(value, property);
  }
  return n;
}
