import { pastResultWindow, tooManyFilters, tooManyQueryWords } from './search-errors';
import { queryTermsOf } from './search-values';

/**
 * HubSpot's PublicObjectSearchRequest as the compiler takes it: filter groups (OR of ANDs), free
 * text, sorts, properties, limit and the offset `after`. The body's shape is checked by its DTO
 * (`http/search.dto.ts`); here are HubSpot's rules on what a well-formed body may ask.
 *
 * Caps: HubSpot's since its 2024-08-26 change (developer changelog "Expanded Filtering
 * Capabilities and Error Messaging in HubSpot's Search API"): 5 filter groups, 10 filters in a group,
 * 25 filters in all. The specs' text still says "up to 6 groups"; the later changelog wins.
 */
export const SEARCH_OPERATORS = [
  'EQ',
  'NEQ',
  'LT',
  'LTE',
  'GT',
  'GTE',
  'BETWEEN',
  'IN',
  'NOT_IN',
  'HAS_PROPERTY',
  'NOT_HAS_PROPERTY',
  'CONTAINS_TOKEN',
  'NOT_CONTAINS_TOKEN',
] as const;
export type SearchOperator = (typeof SEARCH_OPERATORS)[number];

export const MAX_FILTER_GROUPS = 5;
export const MAX_FILTERS_PER_GROUP = 10;
export const MAX_FILTERS = 25;
export const MAX_LIMIT = 200;
export const DEFAULT_LIMIT = 10;
/** HubSpot answers no result past the 10,000th: `after + limit` beyond it is refused. */
export const MAX_RESULT_WINDOW = 10_000;
export const MAX_QUERY_LENGTH = 3000;
/** Words of `query`, each a lookup: bounded so one request's cost is. */
export const MAX_QUERY_TERMS = 32;
export const MAX_SORTS = 3;
export const MAX_PROPERTIES = 1000;
export const MAX_IN_VALUES = 1000;

export type SearchFilter =
  | { propertyName: string; operator: 'HAS_PROPERTY' | 'NOT_HAS_PROPERTY' }
  | {
      propertyName: string;
      operator: 'EQ' | 'NEQ' | 'LT' | 'LTE' | 'GT' | 'GTE' | 'CONTAINS_TOKEN' | 'NOT_CONTAINS_TOKEN';
      value: string;
    }
  | { propertyName: string; operator: 'BETWEEN'; value: string; highValue: string }
  | { propertyName: string; operator: 'IN' | 'NOT_IN'; values: string[] };

export interface SearchSort {
  propertyName: string;
  direction: 'ASCENDING' | 'DESCENDING';
}

export interface SearchRequest {
  filterGroups: SearchFilter[][];
  /** The words of `query` (lower-cased, distinct); empty when none. */
  queryTerms: string[];
  sorts: SearchSort[];
  /** Null: the type's default properties. */
  properties: string[] | null;
  limit: number;
  after: number;
}

/** A filter value as apps send it. */
export type Scalar = string | number | boolean;

/** A search body whose shape its DTO has checked (every operator has the values it needs). */
export interface SearchRequestInput {
  filterGroups?: Array<{ filters: SearchFilterInput[] }>;
  query?: string;
  sorts?: Array<{ propertyName: string; direction?: 'ASCENDING' | 'DESCENDING' }>;
  properties?: string[];
  limit?: number;
  after?: number;
}

export interface SearchFilterInput {
  propertyName: string;
  operator: SearchOperator;
  value?: Scalar;
  highValue?: Scalar;
  values?: Scalar[];
}

/** HubSpot's caps, the words of `query` and the 10,000-result window, with HubSpot's texts. */
export function searchRequestFrom(input: SearchRequestInput): SearchRequest {
  const groups = input.filterGroups ?? [];
  if (groups.length > MAX_FILTER_GROUPS) {
    throw tooManyFilters(
      `Too many filter groups (${groups.length}). The maximum number of filter groups is ${MAX_FILTER_GROUPS}.`,
      'filterGroups',
    );
  }
  groups.forEach((group, g) => {
    if (group.filters.length > MAX_FILTERS_PER_GROUP) {
      throw tooManyFilters(
        `Too many filters in filter group ${g} (${group.filters.length}). The maximum number of filters per filter group is ${MAX_FILTERS_PER_GROUP}.`,
        `filterGroups.${g}.filters`,
      );
    }
  });
  const total = groups.reduce((n, group) => n + group.filters.length, 0);
  if (total > MAX_FILTERS) {
    throw tooManyFilters(
      `Too many filters (${total}). The maximum number of filters across all filter groups is ${MAX_FILTERS}.`,
      'filterGroups',
    );
  }
  const queryTerms = input.query ? queryTermsOf(input.query) : [];
  if (queryTerms.length > MAX_QUERY_TERMS) throw tooManyQueryWords(MAX_QUERY_TERMS);
  const limit = input.limit ?? DEFAULT_LIMIT;
  const after = input.after ?? 0;
  if (after + limit > MAX_RESULT_WINDOW) throw pastResultWindow(after, limit, MAX_RESULT_WINDOW);
  const names = (input.properties ?? []).map((p) => p.trim()).filter((p) => p !== '');
  return {
    filterGroups: groups.map((group) => group.filters.map(filterOf)),
    queryTerms,
    sorts: (input.sorts ?? []).map((s) => ({
      propertyName: s.propertyName.trim(),
      direction: s.direction ?? 'ASCENDING',
    })),
    properties: names.length > 0 ? [...new Set(names)] : null,
    limit,
    after,
  };
}

const text = (v: Scalar | undefined): string => (v === undefined ? '' : String(v));

function filterOf(f: SearchFilterInput): SearchFilter {
  const propertyName = f.propertyName.trim();
  switch (f.operator) {
    case 'HAS_PROPERTY':
    case 'NOT_HAS_PROPERTY':
      return { propertyName, operator: f.operator };
    case 'IN':
    case 'NOT_IN':
      return { propertyName, operator: f.operator, values: (f.values ?? []).map(text) };
    case 'BETWEEN':
      return { propertyName, operator: f.operator, value: text(f.value), highValue: text(f.highValue) };
    default:
      return { propertyName, operator: f.operator, value: text(f.value) };
  }
}
