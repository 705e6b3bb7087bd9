import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { LimitsQueries, PropertiesQueries, standardObjectType } from '../../crm-schema';
import { CLOCK, type Clock } from '../../platform/clock';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import type { SearchRequest } from '../domain/search-request';
import { searchTypeTraits, systemPropertyTypes, systemValuesOf } from './search-types';
import { kindOfPropertyType } from '../domain/search-values';
import { compileSearch } from './search-compiler';
import { SearchExecutor } from './search-executor';
import type { SearchPage } from './search-reader';
import { SearchLags } from './search-lag';
import { unknownSearchProperties } from '../domain/search-errors';
import { ASSOCIATIONS_PREFIX } from './search-association-filter';
import { readIdPage } from './search-id-page';
import type { SearchScope } from './search-sql';

/** An object type as search needs it: its id and the scope family its read scopes come from. */
export interface SearchType {
  objectTypeId: string;
  family: 'contacts' | 'companies' | 'deals' | 'tickets' | 'custom';
}

/** HubSpot's SimplePublicObject, as search answers it. */
export interface SearchResultView {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
}

/** CollectionResponseWithTotalSimplePublicObject. */
export interface SearchAnswer {
  total: number;
  results: SearchResultView[];
  paging?: { next: { after: string } };
}

const SENSITIVITIES = ['non_sensitive', 'sensitive', 'highly_sensitive'] as const;
const iso = (ms: number) => new Date(ms).toISOString();
/** Object types whose property kinds are kept between searches (a few hundred bytes to a few KiB each). */
const KEPT_TYPES = 1000;

/** A type's properties as search needs them, and the read model's change count they were read at. */
interface TypeProperties {
  stamp: number;
  types: ReadonlyMap<string, string>;
  fieldTypes: ReadonlyMap<string, string>;
  /** A custom type's searchable properties (its string ones); undefined for standard types. */
  customSearchable?: readonly string[];
}

/**
 * Searches of the `crm-search` read model: the type and its property definitions from the CRM
 * schema module (through its index), the account's search lag, the query compiled and run on the
 * search thread, the page shaped as HubSpot answers it.
 */
@Injectable()
export class CrmSearchQueries {
  private readonly kept = new Map<string, TypeProperties>();

  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    private readonly limits: LimitsQueries,
    private readonly properties: PropertiesQueries,
    private readonly executor: SearchExecutor,
    private readonly lags: SearchLags,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The type named by a path segment (id, name, singular or plural); HubSpot's 400 when none. */
  resolve(hubId: number, raw: string): SearchType {
    const resolved = this.limits.resolve(hubId, raw);
    return {
      objectTypeId: resolved.objectTypeId,
      family: resolved.kind === 'standard' ? resolved.type.scopeName : 'custom',
    };
  }

  /** The answer as objects (the console's records page). */
  async search(hubId: number, type: SearchType, request: SearchRequest): Promise<SearchAnswer> {
    const page = await this.page(hubId, type, request);
    const next = nextAfter(request, page.total);
    return {
      total: page.total,
      results: JSON.parse(page.results) as SearchResultView[],
      ...(next !== null ? { paging: { next: { after: next } } } : {}),
    };
  }

  /**
   * The answer as JSON text, as the search route sends it: the results come shaped and serialized
   * from the search thread (search-reader.ts), only the envelope is written here. Key order and
   * values are SEARCH_ANSWER_SCHEMA's and the object answer's.
   */
  async searchJson(hubId: number, type: SearchType, request: SearchRequest): Promise<string> {
    const page = await this.page(hubId, type, request);
    const next = nextAfter(request, page.total);
    const paging = next !== null ? `,"paging":${JSON.stringify({ next: { after: next } })}` : '';
    return `{"total":${page.total},"results":${page.results}${paging}}`;
  }

  private async page(hubId: number, type: SearchType, request: SearchRequest): Promise<SearchPage> {
    const lag = this.lags.of(hubId);
    const scope = this.scopeOf(hubId, type, request, lag > 0 ? this.clock.now() - lag : null);
    return this.executor.run(compileSearch(request, scope));
  }

  /**
   * One filter group's matches (and the `query` words) a page at a time in id order, keyset by id
   * (`afterId`; `request.sorts` and `after` are not used): for a caller that needs a page and not
   * HubSpot's exact `total` (the console's records page). The total comes back only where it is
   * cheap to count (search-id-page.ts); `next` is the id to continue after. Null when the account has
   * a search lag or the request several groups: the caller runs `search` instead.
   */
  pageById(
    hubId: number,
    type: SearchType,
    request: SearchRequest,
    afterId: number,
  ): { results: SearchResultView[]; next: string | null; total: number | null } | null {
    if (request.filterGroups.length > 1 || this.lags.of(hubId) > 0) return null;
    const scope = this.scopeOf(hubId, type, request, null);
    const found = readIdPage(this.db, scope, request.filterGroups[0] ?? [], request.queryTerms, afterId, request.limit);
    return {
      results: resultsOf(type.objectTypeId, scope.shown, found.rows, found.values),
      next: found.next === null ? null : String(found.next),
      total: found.total,
    };
  }

  /** The search's scope: the type's properties (an unknown one in a filter or sort is HubSpot's 400), what `query` looks in, what is shown. */
  private scopeOf(hubId: number, type: SearchType, request: SearchRequest, visibleAsOf: number | null): SearchScope {
    const { objectTypeId } = type;
    const { types, fieldTypes, customSearchable } = this.propertiesOf(hubId, type);
    const traits = searchTypeTraits(objectTypeId);
    const associationTarget = (property: string) => associationTargetOf(property);
    refuseUnknownProperties(request, types, associationTarget);
    // The asked (or default) properties the type has, each shown, null without a value (HubSpot's
    // answer); a name the type does not have is left out, as a records GET leaves it out.
    const shown = [
      ...new Set([
        ...(request.properties ?? traits.defaultProperties),
        ...Object.keys(systemPropertyTypes(objectTypeId)),
      ]),
    ]
      .filter((name) => types.has(name))
      .sort();
    return {
      hubId,
      objectTypeId,
      kindOf: (property) => kindOfPropertyType(types.get(property), fieldTypes.get(property)),
      associationTarget,
      searchable: customSearchable ?? traits.searchableProperties,
      visibleAsOf,
      shown,
    };
  }

  /**
   * The type's properties, read again only when the read model changed: its connection's change count
   * (`total_changes()`, a counter in memory) moves with every row any projection writes through it,
   * and it is the only writer of the file while the service runs. So a property created, archived or
   * changed is seen by the next search (read-your-writes), and searches between writes skip listing
   * hundreds of definitions in three sensitivities.
   */
  private propertiesOf(hubId: number, type: SearchType): TypeProperties {
    const stamp = Number((cachedStatement(this.db, 'SELECT total_changes() AS n').get() as { n: number }).n);
    const key = `${hubId}:${type.objectTypeId}`;
    const kept = this.kept.get(key);
    if (kept?.stamp === stamp) return kept;
    const { types, fieldTypes } = this.propertyTypes(hubId, type.objectTypeId);
    const fresh: TypeProperties = {
      stamp,
      types,
      fieldTypes,
      ...(type.family === 'custom'
        ? { customSearchable: [...types].filter(([, t]) => t === 'string').map(([name]) => name) }
        : {}),
    };
    this.kept.delete(key);
    if (this.kept.size >= KEPT_TYPES) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, fresh);
    return fresh;
  }

  /** Each active property's HubSpot type and field type (all sensitivities), the system values' included. */
  private propertyTypes(hubId: number, objectTypeId: string) {
    const types = new Map<string, string>();
    const fieldTypes = new Map<string, string>();
    for (const dataSensitivity of SENSITIVITIES) {
      for (const p of this.properties.list(hubId, objectTypeId, { archived: false, dataSensitivity })) {
        types.set(p.name, p.type);
        fieldTypes.set(p.name, p.fieldType);
      }
    }
    for (const [name, type] of Object.entries(systemPropertyTypes(objectTypeId))) types.set(name, type);
    return { types, fieldTypes };
  }
}

/** The found rows as HubSpot's SimplePublicObjects: each shown property, null without a value. */
function resultsOf(
  objectTypeId: string,
  shown: readonly string[],
  rows: ReadonlyArray<{ id: number; created_at: number; updated_at: number }>,
  found: ReadonlyArray<{ id: number; property: string; value: string }>,
): SearchResultView[] {
  const values = new Map<number, Record<string, string>>();
  for (const v of found) {
    let record = values.get(v.id);
    if (!record) values.set(v.id, (record = {}));
    record[v.property] = v.value;
  }
  return rows.map((row): SearchResultView => {
    const own = { ...values.get(row.id), ...systemValuesOf(objectTypeId, row.id, row.created_at, row.updated_at) };
    const properties: Record<string, string | null> = {};
    for (const name of shown) properties[name] = Object.hasOwn(own, name) ? own[name]! : null;
    return {
      id: String(row.id),
      properties,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
      archived: false,
    };
  });
}

/** The next page's offset while records follow the page; null after the last one. */
function nextAfter(request: SearchRequest, total: number): string | null {
  const next = request.after + request.limit;
  return next < total ? String(next) : null;
}

/**
 * `associations.{type}` (HubSpot's pseudo-property of search filters): the standard object type it
 * names (`contact`, `companies`, `0-3`, … as the records paths take them). HubSpot's search guide
 * says custom objects' associations cannot be searched so: such a name is an unknown property here.
 */
function associationTargetOf(property: string): string | undefined {
  if (!property.startsWith(ASSOCIATIONS_PREFIX)) return undefined;
  return standardObjectType(property.slice(ASSOCIATIONS_PREFIX.length))?.objectTypeId;
}

/** A filter or sort on a property the account's type does not have: HubSpot's 400. */
function refuseUnknownProperties(
  request: SearchRequest,
  types: ReadonlyMap<string, string>,
  associationTarget: (property: string) => string | undefined,
): void {
  const filtered = (name: string) => types.has(name) || associationTarget(name) !== undefined;
  const named = [
    ...request.filterGroups.flatMap((group) =>
      group.map((f) => ({ name: f.propertyName, in: FILTER_FIELD, known: filtered(f.propertyName) })),
    ),
    ...request.sorts.map((s) => ({ name: s.propertyName, in: 'sorts.propertyName', known: types.has(s.propertyName) })),
  ];
  const unknown = named.filter((n, i) => !n.known && named.findIndex((m) => m.name === n.name) === i);
  if (unknown.length > 0) throw unknownSearchProperties(unknown);
}

const FILTER_FIELD = 'filterGroups.filters.propertyName';
