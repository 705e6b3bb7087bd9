import Database from 'better-sqlite3';
import fc from 'fast-check';
import { compileSearch } from '../../src/crm-search/application/search-compiler';
import { answerSearchJob, runSearchJob } from '../../src/crm-search/application/search-reader';
import type { SearchFilter, SearchRequest, SearchSort } from '../../src/crm-search/domain/search-request';
import { type SearchRequestInput, searchRequestFrom } from '../../src/crm-search/domain/search-request';
import { systemValuesOf } from '../../src/crm-search/application/search-types';
import {
  indexedTokensOf,
  kindOfPropertyType,
  lowerOf,
  numericOf,
  tokenMatches,
  optionsOf,
  tokenPatternOf,
  tokensOf,
} from '../../src/crm-search/domain/search-values';
import { CrmSearchProjection } from '../../src/crm-search/projections/crm-search.projection';
import { SearchAssociationsProjection } from '../../src/crm-search/projections/search-associations.projection';
import { AssociationEventType } from '../../src/crm-associations/crm-associations.events';
import { CrmRecordEventType } from '../../src/crm-records/crm-records.events';
import type { Recorded } from '../../src/platform/events/event-type-registry';

/**
 * The query compiler against a brute-force evaluator of the same request over the same random
 * records (fast-check, seeded): same ids, same order, same total. The records are fed to the real
 * projection as the records module's events (creates, changes that clear and replace values,
 * archives), in another account too, so the account and type scoping is exercised as well; a
 * multi-checkbox property compares option by option; associations with companies (some archived) are
 * added and removed and filtered on as `associations.company`; and a search with a lag is answered
 * from the records as they were then (the model keeps every version).
 */
const HUB = 7;
const OTHER_HUB = 8;
const TYPE = '0-1';
/** Records' ids step by this much (see the id filters' values). */
const ID_STEP = 307;
const TYPES: Record<string, string> = {
  firstname: 'string',
  city: 'enumeration',
  tags: 'enumeration',
  notes: 'string',
  score: 'number',
  birthday: 'date',
  hs_object_id: 'number',
  createdate: 'datetime',
  lastmodifieddate: 'datetime',
};
const FIELD_TYPES: Record<string, string> = { city: 'select', tags: 'checkbox' };
const SEARCHABLE = ['firstname', 'notes'];
const kindOf = (p: string) => kindOfPropertyType(TYPES[p], FIELD_TYPES[p]);
const ASSOCIATED = 'associations.company';
const COMPANY = '0-2';
/** Companies 1001–1004 exist, 1004 archived; 1005 never does. */
const COMPANIES = [1001, 1002, 1003, 1004];
const LIVE_COMPANIES = new Set([1001, 1002, 1003]);
const associationTarget = (p: string) => (p === ASSOCIATED ? COMPANY : undefined);

const STRINGS = ['Ada', 'ada', 'ADA lovelace', 'Bob', 'bob smith', 'bob@example.com', 'x-y z', 'Zed', 'a.b', 'Éa'];
const NUMBERS = ['1', '2.5', '-3', '10', '0', '100', 'abc'];
const DATES = ['2026-01-01', '2026-03-15', '2025-12-31', '2026-11-22'];
const TAGS = ['a;b', 'b', 'A;c', 'c;a;b', 'd', ';', 'b;', 'x y;z', 'Ada'];
const valueArb = (p: string) =>
  p === 'tags'
    ? fc.constantFrom(...TAGS)
    : p === 'score'
      ? fc.constantFrom(...NUMBERS)
      : p === 'birthday'
        ? fc.constantFrom(...DATES)
        : fc.constantFrom(...STRINGS);

const OWN = ['firstname', 'city', 'tags', 'notes', 'score', 'birthday'];
const valuesArb = fc
  .record(Object.fromEntries(OWN.map((p) => [p, valueArb(p)])) as Record<string, fc.Arbitrary<string>>, {
    requiredKeys: [],
  })
  .map((v) => v as Record<string, string>);

type Op =
  | { kind: 'create'; hub: number; values: Record<string, string>; at: number }
  | { kind: 'change'; pick: number; changes: Record<string, string>; at: number }
  | { kind: 'archive'; pick: number; at: number }
  | { kind: 'associate'; pick: number; company: number; primary: boolean; remove: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      hub: fc.constantFrom(HUB, HUB, HUB, OTHER_HUB),
      values: valuesArb,
      at: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      pick: fc.nat(),
      changes: fc
        .record(
          Object.fromEntries(OWN.map((p) => [p, fc.oneof(valueArb(p), fc.constant(''))])) as Record<
            string,
            fc.Arbitrary<string>
          >,
          { requiredKeys: [] },
        )
        .map((v) => v as Record<string, string>),
      at: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('archive' as const),
      pick: fc.nat(),
      at: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('associate' as const),
      pick: fc.nat(),
      company: fc.constantFrom(...COMPANIES),
      primary: fc.boolean(),
      remove: fc.boolean(),
    }),
  },
);

const PROPS = [...OWN, 'hs_object_id', 'createdate', 'lastmodifieddate', 'unknown_prop', ASSOCIATED];
const filterValueArb = (p: string): fc.Arbitrary<string> => {
  if (p === ASSOCIATED) return fc.constantFrom('1001', '1002', '1003', '1004', '1005');
  if (p === 'tags') return fc.constantFrom('a', 'B', 'c', 'a;b', 'd', 'z', 'x y', 'ada');
  // Ids are ID_STEP apart, so id ranges span several of the projection's id buckets (1,024 ids each).
  if (p === 'hs_object_id')
    return fc
      .tuple(fc.integer({ min: 0, max: 46 * ID_STEP }), fc.boolean())
      .map(([n, half]) => String(half ? n + 0.5 : n));
  if (p === 'createdate' || p === 'lastmodifieddate') {
    return fc.integer({ min: 0, max: 100 }).map((s) => String(Date.UTC(2026, 0, 1) + s * 1000));
  }
  if (kindOf(p) === 'number')
    return p === 'birthday' ? fc.constantFrom(...DATES) : fc.constantFrom('1', '2.5', '-3', '10', '5');
  return fc.constantFrom(...STRINGS, 'BOB', 'a', 'z');
};
const tokenValueArb = fc.constantFrom(
  'ada',
  'ADA',
  'bob',
  'ad*',
  '*son',
  '*@example.com',
  'smith',
  'x-y',
  'b*b',
  'lovelace',
  'example',
  'a?b',
  // The system values' tokens (the projection indexes them without token rows): a date-time's parts
  // and whole value, an id, and wildcards over them.
  '2026',
  '01t00',
  '000z',
  '*0z',
  '2026-01-01t00:00:05.000z',
  '2026-01-01*',
  '614',
  '6*',
  '00:*',
);

const ASSOCIATION_OPERATORS = ['EQ', 'NEQ', 'IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY'];
const filterArb: fc.Arbitrary<SearchFilter> = fc
  .constantFrom(...PROPS)
  .chain((p): fc.Arbitrary<SearchFilter> => filterOfArb(p))
  .filter((f) => f.propertyName !== ASSOCIATED || ASSOCIATION_OPERATORS.includes(f.operator));
const filterOfArb = (p: string): fc.Arbitrary<SearchFilter> =>
  fc.oneof(
    fc
      .constantFrom('HAS_PROPERTY' as const, 'NOT_HAS_PROPERTY' as const)
      .map((operator) => ({ propertyName: p, operator })),
    fc
      .record({
        operator: fc.constantFrom(
          'EQ' as const,
          'NEQ' as const,
          'LT' as const,
          'LTE' as const,
          'GT' as const,
          'GTE' as const,
        ),
        value: filterValueArb(p),
      })
      .map((f) => ({ propertyName: p, ...f })),
    fc
      .record({ value: filterValueArb(p), highValue: filterValueArb(p) })
      .map((f) => ({ propertyName: p, operator: 'BETWEEN' as const, ...f })),
    fc
      .record({
        operator: fc.constantFrom('IN' as const, 'NOT_IN' as const),
        values: fc.array(filterValueArb(p), { minLength: 1, maxLength: 3 }),
      })
      .map((f) => ({ propertyName: p, ...f })),
    fc
      .record({
        operator: fc.constantFrom('CONTAINS_TOKEN' as const, 'NOT_CONTAINS_TOKEN' as const),
        value: tokenValueArb,
      })
      .map((f) => ({ propertyName: p, ...f })),
  );

const sortArb: fc.Arbitrary<SearchSort> = fc.record({
  propertyName: fc.constantFrom(...OWN, 'hs_object_id', 'createdate', 'lastmodifieddate'),
  direction: fc.constantFrom('ASCENDING' as const, 'DESCENDING' as const),
});

const requestArb: fc.Arbitrary<SearchRequest & { lag: number | null }> = fc.record({
  filterGroups: fc.array(fc.array(filterArb, { minLength: 0, maxLength: 4 }), { minLength: 0, maxLength: 4 }),
  queryTerms: fc
    .array(fc.constantFrom('ad', 'bob', 'lovelace', 'x', 'e', 'zz', 'a.b', 'bob@'), { maxLength: 2 })
    .map((t) => [...new Set(t)]),
  sorts: fc.array(sortArb, { maxLength: 2 }),
  properties: fc.constant(null),
  limit: fc.integer({ min: 1, max: 15 }),
  after: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 20 })),
  lag: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
});

/** A group whose first filter's property is also the sort: the walk along that property's own range. */
const sortedOnFilterArb: fc.Arbitrary<SearchRequest & { lag: number | null }> = fc
  .record({
    filters: fc.array(filterArb, { minLength: 1, maxLength: 2 }),
    direction: fc.constantFrom('ASCENDING' as const, 'DESCENDING' as const),
    limit: fc.integer({ min: 1, max: 15 }),
    after: fc.integer({ min: 0, max: 20 }),
    lag: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
  })
  .map(({ filters, direction, ...rest }) => ({
    filterGroups: [filters],
    queryTerms: [],
    sorts: [{ propertyName: filters[0]!.propertyName, direction }],
    properties: null,
    ...rest,
  }));

interface ModelRecord {
  hub: number;
  id: number;
  createdAt: number;
  updatedAt: number;
  values: Record<string, string>;
  /** The associated companies, each with the types between them (none: not associated). */
  companies: Map<number, Set<string>>;
}

/** A record's whole history: its state after each event (null: archived), at the event's time. */
interface ModelHistory {
  record: ModelRecord;
  versions: Array<{ at: number; state: ModelRecord | null }>;
}

const T0 = Date.UTC(2026, 0, 1);

const snapshot = (r: ModelRecord): ModelRecord => ({ ...r, values: { ...r.values } });

/**
 * Applies the operations to the projections (as the records and associations modules' events) and to
 * the model; answers every record's history.
 */
function build(db: Database.Database, ops: readonly Op[]): ModelHistory[] {
  const projection = new CrmSearchProjection();
  projection.setup(db);
  const associations = new SearchAssociationsProjection();
  associations.setup(db);
  const live: ModelRecord[] = [];
  const histories = new Map<ModelRecord, ModelHistory>();
  let nextId = 1;
  let position = 0;
  const apply = (type: string, data: unknown) => {
    const event = { type, data, position: ++position } as unknown as Recorded<never>;
    if (type.startsWith('crm.Association')) associations.apply(event, db);
    else projection.apply(event, db);
  };
  // The account searches with a lag from the start: its replaced versions are kept.
  apply('search.SearchLagSet', { hubId: HUB, lagMs: 3_600_000, setAt: T0 });
  for (const id of COMPANIES) {
    const company = { hubId: HUB, objectTypeId: COMPANY, id, appId: null, userId: null };
    apply(CrmRecordEventType.RecordCreated, { ...company, properties: { name: `c${id}` }, createdAt: T0 });
    if (!LIVE_COMPANIES.has(id)) apply(CrmRecordEventType.RecordArchived, { ...company, archivedAt: T0 });
  }
  for (const op of ops) {
    if (op.kind === 'create') {
      const id = nextId++ * ID_STEP;
      const at = T0 + op.at * 1000;
      apply(CrmRecordEventType.RecordCreated, {
        hubId: op.hub,
        objectTypeId: TYPE,
        id,
        properties: op.values,
        createdAt: at,
        appId: null,
        userId: null,
      });
      const record: ModelRecord = {
        hub: op.hub,
        id,
        createdAt: at,
        updatedAt: at,
        values: { ...op.values },
        companies: new Map(),
      };
      live.push(record);
      histories.set(record, { record, versions: [{ at, state: snapshot(record) }] });
    } else if (live.length > 0 && op.kind === 'associate') {
      const record = live[op.pick % live.length]!;
      const types = [{ category: 'HUBSPOT_DEFINED', typeId: 279, inverseTypeId: 280 }];
      if (op.primary) types.push({ category: 'HUBSPOT_DEFINED', typeId: 1, inverseTypeId: 2 });
      apply(op.remove ? AssociationEventType.AssociationTypesRemoved : AssociationEventType.AssociationTypesAdded, {
        hubId: record.hub,
        a: { objectTypeId: TYPE, id: record.id },
        b: { objectTypeId: COMPANY, id: op.company },
        types,
        at: record.updatedAt,
        appId: null,
        userId: null,
      });
      const held = record.companies.get(op.company) ?? new Set<string>();
      for (const t of types) {
        if (op.remove) held.delete(String(t.typeId));
        else held.add(String(t.typeId));
      }
      record.companies.set(op.company, held);
    } else if (live.length > 0 && op.kind !== 'associate') {
      const index = op.pick % live.length;
      const record = live[index]!;
      const history = histories.get(record)!;
      const at = Math.max(record.updatedAt, T0 + op.at * 1000);
      if (op.kind === 'change') {
        apply(CrmRecordEventType.RecordPropertiesChanged, {
          hubId: record.hub,
          objectTypeId: TYPE,
          id: record.id,
          changes: op.changes,
          changedAt: at,
          appId: null,
          userId: null,
        });
        for (const [p, v] of Object.entries(op.changes)) {
          if (v === '') delete record.values[p];
          else record.values[p] = v;
        }
        record.updatedAt = at;
        history.versions.push({ at, state: snapshot(record) });
      } else {
        apply(CrmRecordEventType.RecordArchived, {
          hubId: record.hub,
          objectTypeId: TYPE,
          id: record.id,
          archivedAt: at,
          appId: null,
          userId: null,
        });
        live.splice(index, 1);
        history.versions.push({ at, state: null });
      }
    }
  }
  return [...histories.values()];
}

/** The records as a search as of `asOf` sees them (null: now); associations are always as they are now. */
function recordsAsOf(histories: readonly ModelHistory[], asOf: number | null): ModelRecord[] {
  const seen: ModelRecord[] = [];
  for (const { record, versions } of histories) {
    const version = asOf === null ? versions.at(-1) : versions.filter((v) => v.at <= asOf).at(-1);
    if (version?.state) seen.push({ ...version.state, companies: record.companies });
  }
  return seen;
}

const valueOf = (r: ModelRecord, p: string): string | undefined =>
  ({ ...r.values, ...systemValuesOf(TYPE, r.id, r.createdAt, r.updatedAt) })[p];

/** The operand as the evaluator compares it: numbers for number kinds, lower-cased text otherwise. */
const operand = (p: string, v: string): number | string => (kindOf(p) === 'number' ? numericOf(v)! : lowerOf(v));
const comparable = (p: string, raw: string | undefined): number | string | null => {
  if (raw === undefined) return null;
  return kindOf(p) === 'number' ? numericOf(raw) : lowerOf(raw);
};

/** The companies a record is associated with (some type left, the company live). */
const associatedCompanies = (r: ModelRecord): number[] =>
  [...r.companies].filter(([id, types]) => types.size > 0 && LIVE_COMPANIES.has(id)).map(([id]) => id);

function matchesAssociation(r: ModelRecord, f: SearchFilter): boolean {
  const companies = associatedCompanies(r);
  const has = (v: string) => companies.includes(Number(v));
  switch (f.operator) {
    case 'HAS_PROPERTY':
      return companies.length > 0;
    case 'NOT_HAS_PROPERTY':
      return companies.length === 0;
    case 'EQ':
      return has(f.value);
    case 'NEQ':
      return !has(f.value);
    case 'IN':
      return f.values.some(has);
    case 'NOT_IN':
      return !f.values.some(has);
    default:
      throw new Error(`not generated: ${f.operator}`);
  }
}

/**
 * A filter against what the record's value compares as: its one comparable (number or lower-cased
 * text), or for a multi-checkbox each of its options; a positive operator holds when one of them
 * does, a negation when none does (records without the value among them).
 */
function matches(r: ModelRecord, f: SearchFilter): boolean {
  if (f.propertyName === ASSOCIATED) return matchesAssociation(r, f);
  const p = f.propertyName;
  const raw = valueOf(r, p);
  const options = kindOf(p) === 'options';
  const x = comparable(p, raw);
  const candidates: Array<number | string> = options
    ? raw === undefined
      ? []
      : optionsOf(raw)
    : x === null
      ? []
      : [x];
  const some = (test: (c: number | string) => boolean) => candidates.some(test);
  const at = (v: string) => operand(p, v);
  switch (f.operator) {
    case 'HAS_PROPERTY':
      return raw !== undefined;
    case 'NOT_HAS_PROPERTY':
      return raw === undefined;
    case 'EQ':
      return some((c) => c === at(f.value));
    case 'NEQ':
      return !some((c) => c === at(f.value));
    case 'LT':
      return some((c) => c < at(f.value));
    case 'LTE':
      return some((c) => c <= at(f.value));
    case 'GT':
      return some((c) => c > at(f.value));
    case 'GTE':
      return some((c) => c >= at(f.value));
    case 'BETWEEN':
      return some((c) => c >= at(f.value) && c <= at(f.highValue));
    case 'IN':
      return some((c) => f.values.some((v) => c === at(v)));
    case 'NOT_IN':
      return !some((c) => f.values.some((v) => c === at(v)));
    case 'CONTAINS_TOKEN':
    case 'NOT_CONTAINS_TOKEN': {
      // A multi-checkbox's options are its tokens; another value's tokens are its words and their parts.
      const pattern = tokenPatternOf(f.value)!;
      const tokens = options ? (candidates as string[]) : raw === undefined ? [] : indexedTokensOf(raw);
      const has = tokens.some((t) => tokenMatches(t, pattern));
      return f.operator === 'CONTAINS_TOKEN' ? has : !has;
    }
  }
}

const matchesTerm = (r: ModelRecord, term: string) =>
  SEARCHABLE.some((p) => {
    const raw = valueOf(r, p);
    return raw !== undefined && indexedTokensOf(raw).some((t) => t.startsWith(term));
  });

/** The brute-force answer: every record checked, sorted by the keys (missing last), then by id. */
function evaluate(records: ModelRecord[], request: SearchRequest) {
  const groups = request.filterGroups.length > 0 ? request.filterGroups : [[]];
  const found = records.filter(
    (r) =>
      r.hub === HUB &&
      groups.some((g) => g.every((f) => matches(r, f)) && request.queryTerms.every((t) => matchesTerm(r, t))),
  );
  found.sort((a, b) => {
    for (const s of request.sorts) {
      const x = comparable(s.propertyName, valueOf(a, s.propertyName));
      const y = comparable(s.propertyName, valueOf(b, s.propertyName));
      if (x === null || y === null) {
        if (x === null && y === null) continue;
        return x === null ? 1 : -1;
      }
      if (x === y) continue;
      const less = x < y ? -1 : 1;
      return s.direction === 'ASCENDING' ? less : -less;
    }
    return a.id - b.id;
  });
  return { total: found.length, ids: found.slice(request.after, request.after + request.limit).map((r) => r.id) };
}

describe('search compiler against a brute-force evaluator', () => {
  it('answers the same ids in the same order with the same total (random records and requests)', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 0, maxLength: 45 }),
        fc.array(fc.oneof({ weight: 3, arbitrary: requestArb }, { weight: 1, arbitrary: sortedOnFilterArb }), {
          minLength: 1,
          maxLength: 8,
        }),
        (ops, requests) => {
          const db = new Database(':memory:');
          try {
            const histories = build(db, ops);
            for (const { lag, ...request } of requests) {
              const asOf = lag === null ? null : T0 + lag * 1000;
              const records = recordsAsOf(histories, asOf);
              const job = compileSearch(request, {
                hubId: HUB,
                objectTypeId: TYPE,
                kindOf,
                searchable: SEARCHABLE,
                visibleAsOf: asOf,
                shown: ['firstname', 'tags', 'hs_object_id', 'lastmodifieddate'],
                associationTarget,
              });
              const want = evaluate(records, request);
              // Each page plan on its own, and the one the total chooses: the same answer.
              for (const plan of ['auto', 'walk', 'sort'] as const) {
                const got = runSearchJob(db, job, plan);
                expect({ plan, total: got.total, ids: got.rows.map((r) => r.id) }).toEqual({ plan, ...want });
                for (const v of got.values) {
                  const record = records.find((r) => r.id === v.id)!;
                  expect(v.value).toBe(valueOf(record, v.property));
                }
                for (const row of got.rows) {
                  const record = records.find((r) => r.id === row.id)!;
                  expect([row.created_at, row.updated_at]).toEqual([record.createdAt, record.updatedAt]);
                }
              }
              // The page as the search thread hands it over: the same records, shaped as HubSpot answers.
              const answered = answerSearchJob(db, job);
              const shown = job.shape.shown;
              expect({ total: answered.total, results: JSON.parse(answered.results) as unknown }).toEqual({
                total: want.total,
                results: want.ids.map((id) => {
                  const record = records.find((r) => r.id === id)!;
                  return {
                    id: String(id),
                    properties: Object.fromEntries(shown.map((name) => [name, valueOf(record, name) ?? null])),
                    createdAt: new Date(record.createdAt).toISOString(),
                    updatedAt: new Date(record.updatedAt).toISOString(),
                    archived: false,
                  };
                }),
              });
              expect(answered.count).toBe(want.ids.length);
            }
          } finally {
            db.close();
          }
        },
      ),
      { seed: 37, numRuns: 300 },
    );
  });

  it('walks a sort property’s own range, and leaves values that are not numbers to the sort (last)', () => {
    const db = new Database(':memory:');
    try {
      const scores = ['5', 'abc', '1', '7', '', '3'];
      const records = recordsAsOf(
        build(
          db,
          scores.map((score) => ({
            kind: 'create' as const,
            hub: HUB,
            values: (score ? { score } : {}) as Record<string, string>,
            at: 0,
          })),
        ),
        null,
      );
      const requests: SearchRequest[] = [
        { propertyName: 'score', operator: 'HAS_PROPERTY' as const },
        { propertyName: 'score', operator: 'GT' as const, value: '2' },
      ].flatMap((f) =>
        [0, 2, 3].map((after) => ({
          filterGroups: [[f]],
          queryTerms: [],
          sorts: [{ propertyName: 'score', direction: 'DESCENDING' as const }],
          properties: null,
          limit: 2,
          after,
        })),
      );
      for (const request of requests) {
        const job = compileSearch(request, {
          hubId: HUB,
          objectTypeId: TYPE,
          kindOf,
          searchable: SEARCHABLE,
          visibleAsOf: null,
          shown: [],
        });
        const want = evaluate(records, request);
        for (const plan of ['auto', 'walk', 'sort'] as const) {
          const got = runSearchJob(db, job, plan);
          expect({ plan, request, total: got.total, ids: got.rows.map((r) => r.id) }).toEqual({
            plan,
            request,
            ...want,
          });
        }
      }
    } finally {
      db.close();
    }
  });

  it('counts id ranges by the id buckets exactly, at and across the buckets’ edges', () => {
    const db = new Database(':memory:');
    try {
      // 1,200 records (ids 307 apart: some 360 buckets), every fifth archived, a few in another account.
      const ops: Op[] = Array.from({ length: 1200 }, (_, i) => ({
        kind: 'create' as const,
        hub: i % 50 === 0 ? OTHER_HUB : HUB,
        values: {},
        at: 0,
      }));
      for (let i = 0; i < 240; i++) ops.push({ kind: 'archive', pick: i * 4, at: 0 });
      const records = recordsAsOf(build(db, ops), null);
      const edges = [-5, 0, 1023, 1024, 1024.5, 2047, 2048, 307 * 600, 307 * 600 + 0.5, 368_640, 1e12];
      const filters: SearchFilter[] = edges.flatMap((v) => [
        ...(['GT', 'GTE', 'LT', 'LTE'] as const).map((operator) => ({
          propertyName: 'hs_object_id',
          operator,
          value: String(v),
        })),
        ...edges.map((w) => ({
          propertyName: 'hs_object_id',
          operator: 'BETWEEN' as const,
          value: String(v),
          highValue: String(w),
        })),
      ]);
      for (const f of filters) {
        const request: SearchRequest = {
          filterGroups: [[f]],
          queryTerms: [],
          sorts: [],
          properties: null,
          limit: 1,
          after: 0,
        };
        const job = compileSearch(request, {
          hubId: HUB,
          objectTypeId: TYPE,
          kindOf,
          searchable: SEARCHABLE,
          visibleAsOf: null,
          shown: [],
        });
        expect({ f, total: runSearchJob(db, job).total }).toEqual({ f, total: evaluate(records, request).total });
      }
      const job = compileSearch(
        { filterGroups: [[filters[0]!]], queryTerms: [], sorts: [], properties: null, limit: 1, after: 0 },
        { hubId: HUB, objectTypeId: TYPE, kindOf, searchable: SEARCHABLE, visibleAsOf: null, shown: [] },
      );
      expect(job.total.sql).toContain('search_id_buckets');
    } finally {
      db.close();
    }
  });

  it('compares multi-checkbox options and associations as the evaluator does (focused: one or two filters, first page)', () => {
    const focusedArb: fc.Arbitrary<SearchRequest & { lag: number | null }> = fc.record({
      filterGroups: fc.array(
        fc.array(fc.constantFrom('tags', ASSOCIATED).chain(filterOfArb), { minLength: 1, maxLength: 2 }),
        { minLength: 1, maxLength: 2 },
      ),
      queryTerms: fc.constant<string[]>([]),
      sorts: fc.constant<SearchSort[]>([]),
      properties: fc.constant(null),
      limit: fc.constant(50),
      after: fc.constant(0),
      lag: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 10, maxLength: 45 }),
        fc.array(
          focusedArb.filter((r) =>
            r.filterGroups.every((g) =>
              g.every((f) => f.propertyName !== ASSOCIATED || ASSOCIATION_OPERATORS.includes(f.operator)),
            ),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        (ops, requests) => {
          const db = new Database(':memory:');
          try {
            const histories = build(db, ops);
            for (const { lag, ...request } of requests) {
              const asOf = lag === null ? null : T0 + lag * 1000;
              const job = compileSearch(request, {
                hubId: HUB,
                objectTypeId: TYPE,
                kindOf,
                searchable: SEARCHABLE,
                visibleAsOf: asOf,
                shown: ['tags'],
                associationTarget,
              });
              const got = runSearchJob(db, job);
              const want = evaluate(recordsAsOf(histories, asOf), request);
              expect({ total: got.total, ids: got.rows.map((r) => r.id) }).toEqual(want);
            }
          } finally {
            db.close();
          }
        },
      ),
      { seed: 38, numRuns: 200 },
    );
  });

  it('finds the system values’ tokens, which have no rows in the token index (any milliseconds, any id)', () => {
    const db = new Database(':memory:');
    try {
      const projection = new CrmSearchProjection();
      projection.setup(db);
      const times = [Date.UTC(2026, 10, 28, 3, 4, 5, 7), Date.UTC(1999, 0, 2, 23, 59, 59, 999), Date.UTC(2030, 5, 6)];
      times.forEach((at, i) =>
        projection.apply(
          {
            type: CrmRecordEventType.RecordCreated,
            data: {
              hubId: HUB,
              objectTypeId: TYPE,
              id: 1000 + i,
              properties: {},
              createdAt: at,
              appId: null,
              userId: null,
            },
            position: i + 1,
          } as unknown as Recorded<never>,
          db,
        ),
      );
      expect(db.prepare('SELECT COUNT(*) AS n FROM search_tokens').get()).toEqual({ n: 0 });
      const ids = (propertyName: string, operator: 'CONTAINS_TOKEN' | 'NOT_CONTAINS_TOKEN', value: string) => {
        const request = searchRequestFrom({ filterGroups: [{ filters: [{ propertyName, operator, value }] }] });
        const job = compileSearch(request, {
          hubId: HUB,
          objectTypeId: TYPE,
          kindOf,
          searchable: SEARCHABLE,
          visibleAsOf: null,
          shown: [],
        });
        return runSearchJob(db, job).rows.map((r) => r.id);
      };
      // Every token the evaluator's definition gives each value matches that record, and only the records having it.
      times.forEach((at, i) => {
        for (const [property, value] of Object.entries(systemValuesOf(TYPE, 1000 + i, at, at))) {
          for (const token of indexedTokensOf(value)) {
            const having = times.flatMap((t, k) =>
              indexedTokensOf(systemValuesOf(TYPE, 1000 + k, t, t)[property]!).includes(token) ? [1000 + k] : [],
            );
            expect({ property, token, ids: ids(property, 'CONTAINS_TOKEN', token) }).toEqual({
              property,
              token,
              ids: having,
            });
          }
        }
      });
      expect(ids('createdate', 'CONTAINS_TOKEN', '007z')).toEqual([1000]);
      expect(ids('lastmodifieddate', 'CONTAINS_TOKEN', '*t23')).toEqual([1001]);
      expect(ids('lastmodifieddate', 'CONTAINS_TOKEN', '23*')).toEqual([]);
      expect(ids('createdate', 'NOT_CONTAINS_TOKEN', '2026')).toEqual([1001, 1002]);
      expect(ids('hs_object_id', 'CONTAINS_TOKEN', '100*')).toEqual([1000, 1001, 1002]);
      expect(ids('hs_object_id', 'NOT_CONTAINS_TOKEN', '1001')).toEqual([1000, 1002]);
    } finally {
      db.close();
    }
  });

  it('compiles several groups to a UNION and negations to NOT IN sets (no OR, no correlated NOT EXISTS)', () => {
    const request = searchRequestFrom({
      filterGroups: [
        { filters: [{ propertyName: 'firstname', operator: 'NEQ', value: 'ada' }] },
        { filters: [{ propertyName: 'score', operator: 'GT', value: '3' }] },
      ],
    });
    const job = compileSearch(request, {
      hubId: HUB,
      objectTypeId: TYPE,
      kindOf,
      searchable: SEARCHABLE,
      visibleAsOf: null,
      shown: ['hs_object_id'],
    });
    expect(job.page.sql).toContain(' UNION ');
    expect(job.page.sql).toContain('d.id NOT IN (SELECT id FROM search_values');
    expect(job.page.sql).not.toMatch(/ OR |NOT EXISTS/);
    const keyset = compileSearch(
      searchRequestFrom({
        filterGroups: [{ filters: [{ propertyName: 'hs_object_id', operator: 'GT', value: '100' }] }],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
      }),
      { hubId: HUB, objectTypeId: TYPE, kindOf, searchable: SEARCHABLE, visibleAsOf: null, shown: ['hs_object_id'] },
    );
    expect(keyset.page.sql).toContain('d.id > ?');
    expect(keyset.page.sql).toContain('ORDER BY d.id ASC');
  });
});

describe('search request checks', () => {
  const problem = (body: SearchRequestInput) => {
    try {
      searchRequestFrom(body);
    } catch (error) {
      return (error as { httpStatus: number; message: string }).message;
    }
    return null;
  };
  const filters = (n: number) =>
    Array.from({ length: n }, () => ({ propertyName: 'email', operator: 'HAS_PROPERTY' as const }));

  it('takes HubSpot’s caps: 5 groups, 10 filters a group, 25 filters in all; after + limit ≤ 10,000', () => {
    expect(problem({ filterGroups: Array.from({ length: 5 }, () => ({ filters: filters(5) })) })).toBeNull();
    expect(problem({ filterGroups: Array.from({ length: 6 }, () => ({ filters: filters(1) })) })).toMatch(
      /filter groups/,
    );
    expect(problem({ filterGroups: [{ filters: filters(11) }] })).toMatch(/per filter group is 10/);
    expect(problem({ filterGroups: [10, 10, 6].map((n) => ({ filters: filters(n) })) })).toMatch(
      /across all filter groups is 25/,
    );
    expect(problem({ after: 9900, limit: 100 })).toBeNull();
    expect(problem({ after: 9901, limit: 100 })).toMatch(/10000/);
    expect(problem({ after: 9991 })).toMatch(/10000/);
  });

  it('sorts ascending unless told; numbers and booleans compare as their text', () => {
    const request = searchRequestFrom({
      sorts: [{ propertyName: 'email' }, { propertyName: 'x', direction: 'DESCENDING' }],
      filterGroups: [{ filters: [{ propertyName: 'score', operator: 'IN', values: [1.5, true, 'a'] }] }],
    });
    expect(request.sorts).toEqual([
      { propertyName: 'email', direction: 'ASCENDING' },
      { propertyName: 'x', direction: 'DESCENDING' },
    ]);
    expect(request.filterGroups[0]).toEqual([{ propertyName: 'score', operator: 'IN', values: ['1.5', 'true', 'a'] }]);
  });
});

describe('the search history a lag reads', () => {
  /** The search projection over a fresh database, fed events by type. */
  const projected = () => {
    const db = new Database(':memory:');
    const projection = new CrmSearchProjection();
    projection.setup(db);
    let position = 0;
    const apply = (type: string, data: unknown) =>
      projection.apply({ type, data, position: ++position } as unknown as Recorded<never>, db);
    return { db, apply };
  };
  const count = (db: Database.Database, table: string) =>
    (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  const record = { hubId: HUB, objectTypeId: TYPE, id: 1, appId: null, userId: null };

  it('keeps replaced versions as long as the account’s lag (by the events’ times); a GDPR purge forgets them at once', () => {
    const { db, apply } = projected();
    try {
      apply('search.SearchLagSet', { hubId: HUB, lagMs: 60_000, setAt: T0 });
      apply(CrmRecordEventType.RecordCreated, {
        ...record,
        properties: { firstname: 'Ada', tags: 'a;b' },
        createdAt: T0,
      });
      apply(CrmRecordEventType.RecordPropertiesChanged, {
        ...record,
        changes: { firstname: 'Ava', tags: 'c' },
        changedAt: T0 + 1000,
      });
      expect(count(db, 'search_docs_past')).toBe(1);
      expect(count(db, 'search_options_past')).toBe(2); // a and b
      const pastValues = count(db, 'search_values_past');
      // firstname and tags (the modified date is the document's own: search_docs_past)
      expect(pastValues).toBe(2);
      // Past the lag, the next change prunes what it can no longer reach.
      apply(CrmRecordEventType.RecordPropertiesChanged, {
        ...record,
        changes: { firstname: 'Eva' },
        changedAt: T0 + 3_600_000 + 1001,
      });
      expect(count(db, 'search_docs_past')).toBe(1);
      expect(count(db, 'search_options_past')).toBe(0);
      expect(count(db, 'search_values_past')).toBeLessThan(pastValues);
      apply(CrmRecordEventType.RecordPurged, { hubId: HUB, objectTypeId: TYPE, id: 1, purgedAt: T0 + 3_600_002 });
      for (const table of ['search_docs_past', 'search_values_past', 'search_tokens_past', 'search_options_past']) {
        expect(count(db, table)).toBe(0);
      }
    } finally {
      db.close();
    }
  });

  it('keeps nothing for an account without a lag, and drops what it kept when the lag is turned off', () => {
    const { db, apply } = projected();
    try {
      apply(CrmRecordEventType.RecordCreated, { ...record, properties: { firstname: 'Ada' }, createdAt: T0 });
      apply(CrmRecordEventType.RecordPropertiesChanged, {
        ...record,
        changes: { firstname: 'Ava' },
        changedAt: T0 + 1,
      });
      expect(count(db, 'search_values_past')).toBe(0);
      apply('search.SearchLagSet', { hubId: HUB, lagMs: 60_000, setAt: T0 + 2 });
      apply(CrmRecordEventType.RecordArchived, { ...record, archivedAt: T0 + 3 });
      expect(count(db, 'search_docs_past')).toBe(1);
      apply('search.SearchLagSet', { hubId: HUB, lagMs: 0, setAt: T0 + 4 });
      expect(count(db, 'search_docs_past') + count(db, 'search_values_past')).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe('tokensOf', () => {
  it.each([
    ['Bench', ['bench']],
    ['No 123', ['no', '123']],
    ['  Ada   Lovelace ', ['ada', 'lovelace']],
    ['c1@Bench.example.com', ['c1@bench.example.com', 'c1', 'bench', 'example', 'com']],
    ['Ada Lovelace <ada@example.com>', ['ada', 'lovelace', '<ada@example.com>', 'example', 'com']],
    ['é-ß Σ\u00a0x', ['é-ß', 'é', 'ß', 'σ', 'x']],
    ['...', ['...']],
    ['', []],
    ['a a-a', ['a', 'a-a']],
  ])('%j gives its words and their runs of letters and digits, lower-cased, once each', (value, tokens) => {
    expect(tokensOf(value)).toEqual(tokens);
  });
});
