import { notARecordId, unsupportedAssociationOperator } from '../domain/search-errors';
import type { SearchFilter } from '../domain/search-request';
import { type Condition, having, type ScopeWithTables, without } from './search-sql';

/** HubSpot's pseudo-property of associations in search filters: `associations.{objectType}`. */
export const ASSOCIATIONS_PREFIX = 'associations.';

/**
 * A filter on `associations.{type}` (HubSpot's search guide, "search through associations"): the
 * record is associated (any type, any label) with the live record(s) of `target` named by id. `EQ`
 * and `IN` match records associated with that one (any of those); `NEQ` and `NOT_IN` the others;
 * `HAS_PROPERTY` records with any association to a live record of the type, `NOT_HAS_PROPERTY` those
 * without. The associations come from `search_assocs` (projections/search-associations.projection.ts),
 * as they are now (a search lag does not delay them).
 */
export function associationCondition(filter: SearchFilter, target: string, scope: ScopeWithTables): Condition {
  const p = filter.propertyName;
  const idOf = (value: string): number => {
    const v = value.trim();
    if (!/^\d{1,15}$/.test(v)) throw notARecordId(value, p);
    return Number(v);
  };
  const associated = (ids: number[] | null): Condition => ({
    sql:
      'SELECT id FROM search_assocs WHERE hub_id = ? AND object_type_id = ? AND to_type = ?' +
      (ids ? ` AND to_id IN (${ids.map(() => '?').join(', ')})` : '') +
      ' AND to_id IN (SELECT id FROM search_docs WHERE hub_id = ? AND object_type_id = ?)',
    params: [scope.hubId, scope.objectTypeId, target, ...(ids ?? []), scope.hubId, target],
  });
  switch (filter.operator) {
    case 'HAS_PROPERTY':
      return having(associated(null));
    case 'NOT_HAS_PROPERTY':
      return without(associated(null));
    case 'EQ':
      return having(associated([idOf(filter.value)]));
    case 'NEQ':
      return without(associated([idOf(filter.value)]));
    case 'IN':
      return having(associated([...new Set(filter.values.map(idOf))]));
    case 'NOT_IN':
      return without(associated([...new Set(filter.values.map(idOf))]));
    default:
      throw unsupportedAssociationOperator(filter.operator, p);
  }
}
