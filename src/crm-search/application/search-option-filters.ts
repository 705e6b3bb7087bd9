import { blankToken } from '../domain/search-errors';
import type { SearchFilter } from '../domain/search-request';
import { lowerOf, tokenPatternOf } from '../domain/search-values';
import { type Condition, having, type ScopeWithTables, valuesOf, without } from './search-sql';

/**
 * A filter on a multi-checkbox property (`a;b;c`), compared option by option as HubSpot does: `EQ x`
 * matches a record with the option `x` among its options, `IN` one with any of the listed options,
 * `NEQ`/`NOT_IN` the others (records without a value among them), `CONTAINS_TOKEN` an option the
 * token pattern matches, the ranges an option in range. An option never holds `;`: `EQ "a;b"` matches
 * nothing. The records having an option that satisfies a predicate are the values without `;` that
 * satisfy it (a value is then its own one option) and the options of the others (`search_options`).
 */
export function optionsCondition(filter: SearchFilter, scope: ScopeWithTables): Condition {
  const p = filter.propertyName;
  const having_ = (predicate: (column: string) => Condition) => having(withOption(scope, p, predicate));
  const without_ = (predicate: (column: string) => Condition) => without(withOption(scope, p, predicate));
  const one = (op: string, value: string) => (c: string) => ({ sql: `${c} ${op} ?`, params: [lowerOf(value)] });
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return having(valuesOf(scope, p));
    case 'NOT_HAS_PROPERTY':
      return without(valuesOf(scope, p));
    case 'EQ':
      return having_(one('=', filter.value));
    case 'NEQ':
      return without_(one('=', filter.value));
    case 'LT':
      return having_(one('<', filter.value));
    case 'LTE':
      return having_(one('<=', filter.value));
    case 'GT':
      return having_(one('>', filter.value));
    case 'GTE':
      return having_(one('>=', filter.value));
    case 'BETWEEN':
      return having_((c) => ({
        sql: `${c} BETWEEN ? AND ?`,
        params: [lowerOf(filter.value), lowerOf(filter.highValue)],
      }));
    case 'IN':
    case 'NOT_IN': {
      const params = [...new Set(filter.values.map(lowerOf))];
      const list = (c: string) => ({ sql: `${c} IN (${params.map(() => '?').join(', ')})`, params });
      return filter.operator === 'IN' ? having_(list) : without_(list);
    }
    case 'CONTAINS_TOKEN':
    case 'NOT_CONTAINS_TOKEN': {
      const pattern = tokenPatternOf(filter.value);
      if (!pattern) throw blankToken(filter.operator);
      const match = (c: string) =>
        'exact' in pattern
          ? { sql: `${c} = ?`, params: [pattern.exact] }
          : { sql: `${c} GLOB ?`, params: [pattern.glob] };
      return filter.operator === 'CONTAINS_TOKEN' ? having_(match) : without_(match);
    }
  }
}

/** The ids of records with an option of `property` that satisfies `predicate` (given its column). */
function withOption(scope: ScopeWithTables, property: string, predicate: (column: string) => Condition): Condition {
  const single = predicate('lower');
  const several = predicate('option');
  const own = valuesOf(scope, property, { sql: `${single.sql} AND instr(lower, ';') = 0`, params: single.params });
  return {
    sql:
      `${own.sql} UNION SELECT id FROM ${scope.tables.options}` +
      ` WHERE hub_id = ? AND object_type_id = ? AND property = ? AND ${several.sql}`,
    params: [...own.params, scope.hubId, scope.objectTypeId, property, ...several.params],
  };
}
