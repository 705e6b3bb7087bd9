import type { SearchTables } from './search-sql';

/** Without a lag: the index as it is (read-your-writes). */
export const CURRENT_TABLES: SearchTables = {
  docs: 'search_docs',
  values: 'search_values',
  tokens: 'search_tokens',
  options: 'search_options',
  prefix: '',
  prefixParams: [],
};

/** A current row of (record, property) is hidden at t when a version of it was replaced after t. */
const replacedAfter = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM search_values_past p WHERE p.hub_id = ${alias}.hub_id AND p.object_type_id = ${alias}.object_type_id` +
  ` AND p.id = ${alias}.id AND p.property = ${alias}.property AND p.until > ?)`;

/**
 * The index as it was at `asOf` (the search lag: HubSpot's search trails writes): views over the
 * current tables and the past versions the projection keeps (projections/search-history.ts).
 * - a document is seen in the version indexed at `asOf`: the current one if it was last written by
 *   then, else the past version whose span holds `asOf` (a record archived after `asOf` is still
 *   found; one created after it is not);
 * - a value (and its tokens and options) likewise: the current one unless the property was replaced
 *   after `asOf`, else the past version whose span holds `asOf` (none when it had no value then).
 * `NOT MATERIALIZED`: SQLite inlines the views and pushes each filter's account, type and property
 * into them instead of building them whole.
 */
export function tablesAsOf(asOf: number): SearchTables {
  const view = (name: string, sql: string) => `${name} AS NOT MATERIALIZED (${sql})`;
  const prefix =
    'WITH ' +
    [
      view(
        'asof_docs',
        'SELECT hub_id, object_type_id, id, created_at, updated_at FROM search_docs WHERE updated_at <= ?' +
          ' UNION ALL SELECT hub_id, object_type_id, id, created_at, updated_at FROM search_docs_past' +
          ' WHERE updated_at <= ? AND until > ?',
      ),
      view(
        'asof_values',
        `SELECT hub_id, object_type_id, property, id, value, lower, num FROM search_values v WHERE ${replacedAfter('v')}` +
          ' UNION ALL SELECT hub_id, object_type_id, property, id, value, lower, num FROM search_values_past' +
          ' WHERE value IS NOT NULL AND since <= ? AND until > ?',
      ),
      view(
        'asof_tokens',
        `SELECT hub_id, object_type_id, property, token, id FROM search_tokens t WHERE ${replacedAfter('t')}` +
          ' UNION ALL SELECT hub_id, object_type_id, property, token, id FROM search_tokens_past' +
          ' WHERE since <= ? AND until > ?',
      ),
      view(
        'asof_options',
        `SELECT hub_id, object_type_id, property, option, id FROM search_options o WHERE ${replacedAfter('o')}` +
          ' UNION ALL SELECT hub_id, object_type_id, property, option, id FROM search_options_past' +
          ' WHERE since <= ? AND until > ?',
      ),
    ].join(', ') +
    ' ';
  return {
    docs: 'asof_docs',
    values: 'asof_values',
    tokens: 'asof_tokens',
    options: 'asof_options',
    prefix,
    // docs: 3; values, tokens, options: 3 each.
    prefixParams: Array.from({ length: 12 }, () => asOf),
  };
}
