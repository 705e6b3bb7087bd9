import Database from 'better-sqlite3';
import { compileSearch } from '../../src/crm-search/application/search-compiler';
import { readIdPage } from '../../src/crm-search/application/search-id-page';
import { runSearchJob } from '../../src/crm-search/application/search-reader';
import type { SearchScope } from '../../src/crm-search/application/search-sql';
import { type SearchRequestInput, searchRequestFrom } from '../../src/crm-search/domain/search-request';
import { kindOfPropertyType } from '../../src/crm-search/domain/search-values';
import { CrmSearchProjection } from '../../src/crm-search/projections/crm-search.projection';
import { CrmRecordEventType } from '../../src/crm-records/crm-records.events';
import type { Recorded } from '../../src/platform/events/event-type-registry';

/**
 * The console's id page of search matches (readIdPage) against CRM search's own answer for the same
 * request: paged through to its end, the same ids in id order; its total, when it gives one, search's
 * total. Small bounds so that both plans (a small set drives; the bounded walk in id order) and the
 * walk's cut are exercised on a few hundred records.
 */
const HUB = 7;
const TYPE = '0-1';
const TYPES: Record<string, string> = {
  firstname: 'string',
  lastname: 'string',
  email: 'string',
  score: 'number',
  hs_object_id: 'number',
};
const COUNT = 300;

function readModel(): Database.Database {
  const db = new Database(':memory:');
  const projection = new CrmSearchProjection();
  projection.setup(db);
  let position = 0;
  for (let id = 1; id <= COUNT; id++) {
    const properties: Record<string, string> = {
      email: `c${id}@bench.example.com`,
      lastname: `No ${id}`,
      ...(id % 3 === 0 ? { firstname: 'Ada' } : id % 3 === 1 ? { firstname: 'Bob' } : {}),
      ...(id % 50 === 0 ? { score: String(id) } : {}),
    };
    for (const hubId of [HUB, HUB + 1]) {
      const data = { hubId, objectTypeId: TYPE, id, properties, createdAt: id, appId: null, userId: null };
      projection.apply(
        { type: CrmRecordEventType.RecordCreated, data, position: ++position } as unknown as Recorded<never>,
        db,
      );
    }
  }
  return db;
}

const scope: SearchScope = {
  hubId: HUB,
  objectTypeId: TYPE,
  kindOf: (p) => kindOfPropertyType(TYPES[p]),
  searchable: ['firstname', 'lastname', 'email'],
  visibleAsOf: null,
  shown: ['email', 'firstname'],
};

describe('the id page of search matches', () => {
  const db = readModel();
  const requests: SearchRequestInput[] = [
    { query: 'c7@bench.example.com' }, // `c7*`: 11 records; the other words every record
    { query: 'bench c29' },
    { query: 'bench' },
    { query: 'bench example' },
    { query: 'nothing' },
    { query: 'ada bench' },
    { filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'EQ', value: 'ada' }] }] },
    { filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'NOT_HAS_PROPERTY' }] }] },
    { filterGroups: [{ filters: [{ propertyName: 'firstname', operator: 'NEQ', value: 'bob' }] }], query: 'com' },
    { filterGroups: [{ filters: [{ propertyName: 'score', operator: 'GTE', value: '150' }] }], query: 'bench' },
    { filterGroups: [{ filters: [{ propertyName: 'hs_object_id', operator: 'GT', value: '280' }] }] },
    { filterGroups: [{ filters: [{ propertyName: 'lastname', operator: 'CONTAINS_TOKEN', value: '2*' }] }] },
  ];

  it.each(requests.map((r) => [JSON.stringify(r), r]))('%s: the same ids as search, in id order', (_, input) => {
    const request = searchRequestFrom({ ...(input as SearchRequestInput), limit: 200 });
    const expected = runSearchJob(
      db,
      compileSearch({ ...request, sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }] }, scope),
    );
    const all = runSearchJob(
      db,
      compileSearch(
        { ...request, after: 200, sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }] },
        scope,
      ),
    );
    const wanted = [...expected.rows, ...all.rows].map((r) => r.id);
    const got: number[] = [];
    let after = 0;
    for (let pages = 0; pages < 100; pages++) {
      const page = readIdPage(db, scope, request.filterGroups[0] ?? [], request.queryTerms, after, 7, {
        smallSet: 20,
        walkBudget: 50,
      });
      expect(page.rows.length).toBeLessThanOrEqual(7);
      if (page.total !== null) expect(page.total).toBe(expected.total);
      // The page's shown values are the records' own.
      for (const v of page.values) expect(page.rows.some((r) => r.id === v.id)).toBe(true);
      got.push(...page.rows.map((r) => r.id));
      if (page.next === null) break;
      expect(page.next).toBeGreaterThan(after);
      after = page.next;
    }
    expect(got).toEqual(wanted);
  });

  it('counts the total only where a small set drives the page, and cuts a walk that finds too few', () => {
    const terms = (q: string) => searchRequestFrom({ query: q }).queryTerms;
    // `c7*` has 22 token rows (c7, c70–c79, each also in the whole address) for 11 records.
    const bounds = { smallSet: 30, walkBudget: 50 };
    expect(readIdPage(db, scope, [], terms('c7@bench.example.com'), 0, 7, bounds).total).toBe(11);
    const broad = readIdPage(db, scope, [], terms('bench'), 0, 7, bounds);
    expect([broad.total, broad.rows.map((r) => r.id), broad.next]).toEqual([null, [1, 2, 3, 4, 5, 6, 7], 7]);
    // A word no record has: nothing is read past its empty set.
    const nothing = readIdPage(db, scope, [], terms('zzz bench'), 0, 7, bounds);
    expect([nothing.rows, nothing.total, nothing.next]).toEqual([[], 0, null]);
    // Two sets that never meet and neither small: the walk stops at its budget and says where to continue.
    const none = readIdPage(
      db,
      scope,
      [
        { propertyName: 'firstname', operator: 'NOT_HAS_PROPERTY' },
        { propertyName: 'firstname', operator: 'HAS_PROPERTY' },
      ],
      [],
      0,
      7,
      bounds,
    );
    expect([none.rows, none.total, none.next]).toEqual([[], null, 50]);
  });
});
