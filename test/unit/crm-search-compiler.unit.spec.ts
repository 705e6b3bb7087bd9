import Database from 'better-sqlite3';
import fc from 'fast-check';
import { compileSearch } from '../../src/crm-search/application/search-compiler';
import { runSearchJob } from '../../src/crm-search/application/search-reader';
import type { SearchFilter, SearchRequest, SearchSort } from '../../src/crm-search/domain/search-request';
import { type SearchRequestInput, searchRequestFrom } from '../../src/crm-search/domain/search-request';
import { systemValuesOf } from '../../src/crm-search/application/search-types';
import {
  indexedTokensOf,
  kindOfPropertyType,
  lowerOf,
  numericOf,
  tokenMatches,
  tokenPatternOf,
} from '../../src/crm-search/domain/search-values';
import { CrmSearchProjection } from '../../src/crm-search/projections/crm-search.projection';
import { CrmRecordEventType, type RecordEvent } from '../../src/crm-records/crm-records.events';
import type { Recorded } from '../../src/platform/events/event-type-registry';

/**
 * The query compiler against a brute-force evaluator of the same request over the same random
 * records (fast-check, seeded): same ids, same order, same total. The records are fed to the real
 * projection as the records module's events (creates, changes that clear and replace values,
 * archives), in another account too, so the account and type scoping is exercised as well.
 */
const HUB = 7;
const OTHER_HUB = 8;
const TYPE = '0-1';
/** Records' ids step by this much (see the id filters' values). */
const ID_STEP = 307;
const TYPES: Record<string, string> = {
  firstname: 'string',
  city: 'enumeration',
  notes: 'string',
  score: 'number',
  birthday: 'date',
  hs_object_id: 'number',
  createdate: 'datetime',
  lastmodifieddate: 'datetime',
};
const SEARCHABLE = ['firstname', 'notes'];
const kindOf = (p: string) => kindOfPropertyType(TYPES[p]);

const STRINGS = ['Ada', 'ada', 'ADA lovelace', 'Bob', 'bob smith', 'bob@example.com', 'x-y z', 'Zed', 'a.b', 'Éa'];
const NUMBERS = ['1', '2.5', '-3', '10', '0', '100', 'abc'];
const DATES = ['2026-01-01', '2026-03-15', '2025-12-31', '2026-11-22'];
const valueArb = (p: string) =>
  p === 'score'
    ? fc.constantFrom(...NUMBERS)
    : p === 'birthday'
      ? fc.constantFrom(...DATES)
      : fc.constantFrom(...STRINGS);

const OWN = ['firstname', 'city', 'notes', 'score', 'birthday'];
const valuesArb = fc
  .record(Object.fromEntries(OWN.map((p) => [p, valueArb(p)])) as Record<string, fc.Arbitrary<string>>, {
    requiredKeys: [],
  })
  .map((v) => v as Record<string, string>);

type Op =
  | { kind: 'create'; hub: number; values: Record<string, string>; at: number }
  | { kind: 'change'; pick: number; changes: Record<string, string>; at: number }
  | { kind: 'archive'; pick: number; at: number };

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
    weight: 2,
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
);

const PROPS = [...OWN, 'hs_object_id', 'createdate', 'unknown_prop'];
const filterValueArb = (p: string): fc.Arbitrary<string> => {
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
);

const filterArb: fc.Arbitrary<SearchFilter> = fc.constantFrom(...PROPS).chain((p): fc.Arbitrary<SearchFilter> =>
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
  ),
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
  after: fc.integer({ min: 0, max: 20 }),
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
}

const T0 = Date.UTC(2026, 0, 1);

/** Applies the operations to the projection (as the records module's events) and to the model. */
function build(db: Database.Database, ops: readonly Op[]): ModelRecord[] {
  const projection = new CrmSearchProjection();
  projection.setup(db);
  const live: ModelRecord[] = [];
  let nextId = 1;
  let position = 0;
  const apply = (type: string, data: unknown) =>
    projection.apply({ type, data, position: ++position } as unknown as Recorded<RecordEvent>, db);
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
      live.push({ hub: op.hub, id, createdAt: at, updatedAt: at, values: { ...op.values } });
    } else if (live.length > 0) {
      const index = op.pick % live.length;
      const record = live[index]!;
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
      }
    }
  }
  return live;
}

const valueOf = (r: ModelRecord, p: string): string | undefined =>
  ({ ...r.values, ...systemValuesOf(TYPE, r.id, r.createdAt, r.updatedAt) })[p];

/** The operand as the evaluator compares it: numbers for number kinds, lower-cased text otherwise. */
const operand = (p: string, v: string): number | string => (kindOf(p) === 'number' ? numericOf(v)! : lowerOf(v));
const comparable = (p: string, raw: string | undefined): number | string | null => {
  if (raw === undefined) return null;
  return kindOf(p) === 'number' ? numericOf(raw) : lowerOf(raw);
};

function matches(r: ModelRecord, f: SearchFilter): boolean {
  const raw = valueOf(r, f.propertyName);
  const x = comparable(f.propertyName, raw);
  const eq = (v: string) => x !== null && x === operand(f.propertyName, v);
  switch (f.operator) {
    case 'HAS_PROPERTY':
      return raw !== undefined;
    case 'NOT_HAS_PROPERTY':
      return raw === undefined;
    case 'EQ':
      return eq(f.value);
    case 'NEQ':
      return !eq(f.value);
    case 'LT':
      return x !== null && x < operand(f.propertyName, f.value);
    case 'LTE':
      return x !== null && x <= operand(f.propertyName, f.value);
    case 'GT':
      return x !== null && x > operand(f.propertyName, f.value);
    case 'GTE':
      return x !== null && x >= operand(f.propertyName, f.value);
    case 'BETWEEN':
      return x !== null && x >= operand(f.propertyName, f.value) && x <= operand(f.propertyName, f.highValue);
    case 'IN':
      return f.values.some(eq);
    case 'NOT_IN':
      return !f.values.some(eq);
    case 'CONTAINS_TOKEN':
    case 'NOT_CONTAINS_TOKEN': {
      const pattern = tokenPatternOf(f.value)!;
      const has = raw !== undefined && indexedTokensOf(raw).some((t) => tokenMatches(t, pattern));
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
function evaluate(records: ModelRecord[], request: SearchRequest, asOf: number | null) {
  const groups = request.filterGroups.length > 0 ? request.filterGroups : [[]];
  const found = records.filter(
    (r) =>
      r.hub === HUB &&
      (asOf === null || r.createdAt <= asOf) &&
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
            const records = build(db, ops);
            for (const { lag, ...request } of requests) {
              const asOf = lag === null ? null : T0 + lag * 1000;
              const job = compileSearch(request, {
                hubId: HUB,
                objectTypeId: TYPE,
                kindOf,
                searchable: SEARCHABLE,
                visibleAsOf: asOf,
                shown: ['firstname', 'hs_object_id'],
              });
              const want = evaluate(records, request, asOf);
              // Each page plan on its own, and the one the total chooses: the same answer.
              for (const plan of ['auto', 'walk', 'sort'] as const) {
                const got = runSearchJob(db, job, plan);
                expect({ plan, total: got.total, ids: got.rows.map((r) => r.id) }).toEqual({ plan, ...want });
                for (const v of got.values) {
                  const record = records.find((r) => r.id === v.id)!;
                  expect(v.value).toBe(valueOf(record, v.property));
                }
              }
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
      const records = build(
        db,
        scores.map((score) => ({
          kind: 'create' as const,
          hub: HUB,
          values: (score ? { score } : {}) as Record<string, string>,
          at: 0,
        })),
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
        const want = evaluate(records, request, null);
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
      const records = build(db, ops);
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
        expect({ f, total: runSearchJob(db, job).total }).toEqual({ f, total: evaluate(records, request, null).total });
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
