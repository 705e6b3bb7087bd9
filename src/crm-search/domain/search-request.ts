import { type ErrorDetail, HubSpotError } from '../../platform/errors/hubspot-error';
import { queryTermsOf } from './search-values';

/**
 * HubSpot's PublicObjectSearchRequest, checked: filter groups (OR of ANDs), free text, sorts,
 * properties, limit and the offset `after`. Every problem of a body is reported at once.
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A scalar as HubSpot takes it: strings as they are, numbers and booleans as their text. */
function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

export function parseSearchRequest(body: unknown): SearchRequest {
  const errors: ErrorDetail[] = [];
  const bad = (field: string, message: string, code = 'INVALID') => errors.push({ message, in: field, code });
  if (!isObject(body)) {
    throw HubSpotError.validation('Invalid input JSON: the search request must be a JSON object.', [
      { message: 'must be a JSON object', in: 'body', code: 'INVALID_TYPE' },
    ]);
  }

  // filterGroups
  const filterGroups: SearchFilter[][] = [];
  const rawGroups = body.filterGroups ?? [];
  if (!Array.isArray(rawGroups)) bad('filterGroups', 'filterGroups must be an array');
  else {
    if (rawGroups.length > MAX_FILTER_GROUPS) {
      throw capError(
        `Too many filter groups (${rawGroups.length}). The maximum number of filter groups is ${MAX_FILTER_GROUPS}.`,
        'filterGroups',
      );
    }
    let total = 0;
    rawGroups.forEach((group, g) => {
      const at = `filterGroups[${g}]`;
      if (!isObject(group) || !Array.isArray(group.filters)) {
        bad(`${at}.filters`, 'each filter group needs a filters array');
        return;
      }
      if (group.filters.length > MAX_FILTERS_PER_GROUP) {
        throw capError(
          `Too many filters in filter group ${g} (${group.filters.length}). The maximum number of filters per filter group is ${MAX_FILTERS_PER_GROUP}.`,
          `${at}.filters`,
        );
      }
      total += group.filters.length;
      const filters: SearchFilter[] = [];
      group.filters.forEach((raw, f) => {
        const parsed = parseFilter(raw, `${at}.filters[${f}]`, bad);
        if (parsed) filters.push(parsed);
      });
      filterGroups.push(filters);
    });
    if (total > MAX_FILTERS) {
      throw capError(
        `Too many filters (${total}). The maximum number of filters across all filter groups is ${MAX_FILTERS}.`,
        'filterGroups',
      );
    }
  }

  // query
  let queryTerms: string[] = [];
  if (body.query !== undefined && body.query !== null) {
    if (typeof body.query !== 'string') bad('query', 'query must be a string');
    else if (body.query.length > MAX_QUERY_LENGTH) {
      bad('query', `query may have at most ${MAX_QUERY_LENGTH} characters`, 'TOO_LONG');
    } else {
      queryTerms = queryTermsOf(body.query);
      if (queryTerms.length > MAX_QUERY_TERMS) {
        bad('query', `query may have at most ${MAX_QUERY_TERMS} distinct words`, 'TOO_MANY');
      }
    }
  }

  // sorts: "createdate", "-createdate", or { propertyName, direction }
  const sorts: SearchSort[] = [];
  const rawSorts = body.sorts ?? [];
  if (!Array.isArray(rawSorts)) bad('sorts', 'sorts must be an array');
  else if (rawSorts.length > MAX_SORTS) bad('sorts', `at most ${MAX_SORTS} sorts`, 'TOO_MANY');
  else {
    rawSorts.forEach((raw, i) => {
      const sort = parseSort(raw);
      if (sort) sorts.push(sort);
      else bad(`sorts[${i}]`, 'a sort is a property name ("-name" descending) or {propertyName, direction}');
    });
  }

  // properties
  let properties: string[] | null = null;
  if (body.properties !== undefined && body.properties !== null) {
    if (!Array.isArray(body.properties) || !body.properties.every((p) => typeof p === 'string')) {
      bad('properties', 'properties must be an array of property names');
    } else if (body.properties.length > MAX_PROPERTIES) {
      bad('properties', `at most ${MAX_PROPERTIES} properties`, 'TOO_MANY');
    } else {
      const names = (body.properties as string[]).map((p) => p.trim()).filter((p) => p !== '');
      properties = names.length > 0 ? [...new Set(names)] : null;
    }
  }

  // limit
  let limit = DEFAULT_LIMIT;
  if (body.limit !== undefined && body.limit !== null) {
    const n = typeof body.limit === 'string' && /^\d{1,9}$/.test(body.limit) ? Number(body.limit) : body.limit;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
      bad('limit', `limit must be an integer from 1 to ${MAX_LIMIT}`, 'OUT_OF_RANGE');
    } else limit = n;
  }

  // after: HubSpot's cursor is the offset of the page, sent as a string (or a number)
  let after = 0;
  if (body.after !== undefined && body.after !== null && body.after !== '') {
    const n = typeof body.after === 'string' && /^\d{1,9}$/.test(body.after.trim()) ? Number(body.after) : body.after;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
      bad('after', 'after must be the cursor of a previous page (a non-negative integer)', 'INVALID');
    } else after = n;
  }

  if (errors.length > 0) {
    throw HubSpotError.validation(
      `Invalid search request: ${[...new Set(errors.map((e) => e.in))].join(', ')}`,
      errors,
    );
  }
  if (after + limit > MAX_RESULT_WINDOW) {
    throw HubSpotError.validation(
      `Paging past the first ${MAX_RESULT_WINDOW} results is not supported: after (${after}) + limit (${limit}) must be at most ${MAX_RESULT_WINDOW}. Narrow the filters (e.g. hs_object_id GT the last id, sorted by hs_object_id) instead.`,
      [{ message: `after + limit must be at most ${MAX_RESULT_WINDOW}`, in: 'after', code: 'OUT_OF_RANGE' }],
    );
  }
  return { filterGroups, queryTerms, sorts, properties, limit, after };
}

function capError(message: string, field: string): HubSpotError {
  return HubSpotError.validation(message, [{ message, in: field, code: 'TOO_MANY' }]);
}

function parseSort(raw: unknown): SearchSort | null {
  if (typeof raw === 'string') {
    const name = raw.trim();
    const descending = name.startsWith('-');
    const propertyName = descending ? name.slice(1).trim() : name;
    return propertyName === '' ? null : { propertyName, direction: descending ? 'DESCENDING' : 'ASCENDING' };
  }
  if (!isObject(raw) || typeof raw.propertyName !== 'string' || raw.propertyName.trim() === '') return null;
  const direction = raw.direction ?? 'ASCENDING';
  if (direction !== 'ASCENDING' && direction !== 'DESCENDING') return null;
  return { propertyName: raw.propertyName.trim(), direction };
}

function parseFilter(
  raw: unknown,
  at: string,
  bad: (field: string, message: string, code?: string) => void,
): SearchFilter | null {
  if (!isObject(raw)) {
    bad(at, 'a filter is an object with propertyName and operator');
    return null;
  }
  const propertyName = typeof raw.propertyName === 'string' ? raw.propertyName.trim() : '';
  if (propertyName === '') {
    bad(`${at}.propertyName`, 'propertyName is required', 'REQUIRED');
    return null;
  }
  const operator = raw.operator;
  if (typeof operator !== 'string' || !(SEARCH_OPERATORS as readonly string[]).includes(operator)) {
    bad(`${at}.operator`, `operator must be one of ${SEARCH_OPERATORS.join(', ')}`, 'INVALID_ENUM');
    return null;
  }
  const op = operator as SearchOperator;
  switch (op) {
    case 'HAS_PROPERTY':
    case 'NOT_HAS_PROPERTY':
      return { propertyName, operator: op };
    case 'IN':
    case 'NOT_IN': {
      const values = Array.isArray(raw.values) ? raw.values.map(scalar) : undefined;
      if (!values || values.length === 0 || values.length > MAX_IN_VALUES || values.some((v) => v === undefined)) {
        bad(`${at}.values`, `${op} needs values: an array of 1 to ${MAX_IN_VALUES} strings`, 'REQUIRED');
        return null;
      }
      return { propertyName, operator: op, values: values as string[] };
    }
    case 'BETWEEN': {
      const value = scalar(raw.value);
      const highValue = scalar(raw.highValue);
      if (value === undefined || highValue === undefined) {
        bad(`${at}.value`, 'BETWEEN needs value and highValue', 'REQUIRED');
        return null;
      }
      return { propertyName, operator: op, value, highValue };
    }
    default: {
      const value = scalar(raw.value);
      if (value === undefined) {
        bad(`${at}.value`, `${op} needs a value`, 'REQUIRED');
        return null;
      }
      return { propertyName, operator: op, value };
    }
  }
}
