// `node scripts/with-build.mjs bench/search.mjs`: CRM search over 100,000 contacts of one account
// (issue 37's bench): the search read model filled through its projection, then each kind of search
// run on the search thread (SearchExecutor: worker with a read-only connection), p50/p99 per kind.
// In process, on the built code (dist/) and a read-model file in a temp dir. SEARCH_BENCH_CONTACTS
// and SEARCH_BENCH_RUNS change the size.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const dist = (p) => require(join(new URL('..', import.meta.url).pathname, 'dist', p));
const { CrmSearchProjection } = dist('crm-search/projections/crm-search.projection.js');
const { SearchExecutor } = dist('crm-search/application/search-executor.js');
const { compileSearch } = dist('crm-search/application/search-compiler.js');
const { searchRequestFrom } = dist('crm-search/domain/search-request.js');
const { kindOfPropertyType } = dist('crm-search/domain/search-values.js');
const { openReadModelDatabase, closeReadModelDatabase } = dist('platform/projections/read-model-database.js');

const HUB = 4242;
const COUNT = Number(process.env.SEARCH_BENCH_CONTACTS ?? 100_000);
const RUNS = Number(process.env.SEARCH_BENCH_RUNS ?? 100);
const T0 = Date.UTC(2026, 0, 1);
const FIRST = ['Ada', 'Bob', 'Carol', 'Dan', 'Eve', 'Fay', 'Gus', 'Hal', 'Ivy', 'Jon'].flatMap((n) =>
  Array.from({ length: 20 }, (_, i) => `${n}${i === 0 ? '' : String.fromCharCode(97 + i)}`),
);
const STAGES = ['subscriber', 'lead', 'marketingqualifiedlead', 'salesqualifiedlead', 'opportunity', 'customer'];
const TYPES = {
  email: 'string',
  firstname: 'string',
  lastname: 'string',
  phone: 'string',
  lifecyclestage: 'enumeration',
  score: 'number',
  hs_object_id: 'number',
  createdate: 'datetime',
  lastmodifieddate: 'datetime',
};

function fill(db) {
  const projection = new CrmSearchProjection();
  projection.setup(db);
  const batch = db.transaction((from, to) => {
    for (let id = from; id < to; id++) {
      const properties = {
        email: `person${id}@${id % 7 === 0 ? 'example.org' : 'example.com'}`,
        firstname: FIRST[id % FIRST.length],
        lastname: `Family${(id * 7919) % 500}`,
        lifecyclestage: STAGES[id % STAGES.length],
        score: String((id * 104729) % 1000),
      };
      if (id % 3 === 0) properties.phone = `+1 555 ${String(id).padStart(6, '0')}`;
      projection.apply(
        {
          type: 'crm.RecordCreated',
          data: { hubId: HUB, objectTypeId: '0-1', id, properties, createdAt: T0 + id * 1000, appId: 1, userId: null },
        },
        db,
      );
    }
  });
  for (let from = 1; from <= COUNT; from += 5000) batch(from, Math.min(COUNT + 1, from + 5000));
}

const filter = (propertyName, operator, more = {}) => ({
  filterGroups: [{ filters: [{ propertyName, operator, ...more }] }],
});
const KINDS = [
  ['selective: EQ email', (i) => filter('email', 'EQ', { value: `person${(i * 997) % COUNT}@example.com` })],
  [
    'selective: id keyset (GT, sorted by id)',
    (i) => ({
      ...filter('hs_object_id', 'GT', { value: String((i * 991) % COUNT) }),
      sorts: [{ propertyName: 'hs_object_id' }],
    }),
  ],
  [
    'selective: range sorted on the same property',
    (i) => ({
      ...filter('score', 'BETWEEN', { value: String(i % 900), highValue: String((i % 900) + 5) }),
      sorts: [{ propertyName: 'score' }],
    }),
  ],
  [
    'broad: EQ stage, sorted on createdate',
    (i) => ({
      ...filter('lifecyclestage', 'EQ', { value: STAGES[i % STAGES.length] }),
      sorts: [{ propertyName: 'createdate', direction: 'DESCENDING' }],
    }),
  ],
  ['broad: query (word prefix)', (i) => ({ query: FIRST[i % FIRST.length].slice(0, 3) })],
  [
    'broad: last page before 10,000',
    (i) => ({ ...filter('lifecyclestage', 'NEQ', { value: STAGES[i % STAGES.length] }), after: 9900, limit: 100 }),
  ],
  [
    'broad: two OR groups',
    (i) => ({
      filterGroups: [
        filter('firstname', 'EQ', { value: FIRST[i % FIRST.length] }).filterGroups[0],
        filter('score', 'GT', { value: '990' }).filterGroups[0],
      ],
    }),
  ],
  ['negation: NEQ', (i) => filter('lifecyclestage', 'NEQ', { value: STAGES[i % STAGES.length] })],
  ['negation: NOT_IN', (i) => filter('lifecyclestage', 'NOT_IN', { values: [STAGES[i % 6], STAGES[(i + 1) % 6]] })],
  ['negation: NOT_HAS_PROPERTY', () => filter('phone', 'NOT_HAS_PROPERTY')],
];

const dir = mkdtempSync(join(tmpdir(), 'search-bench-'));
const db = openReadModelDatabase(join(dir, 'readmodels.sqlite'));
try {
  let started = performance.now();
  fill(db);
  console.log(`${COUNT} contacts indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const executor = new SearchExecutor(db);
  const scope = {
    hubId: HUB,
    objectTypeId: '0-1',
    kindOf: (p) => kindOfPropertyType(TYPES[p]),
    searchable: ['firstname', 'lastname', 'email', 'phone'],
    visibleAsOf: null,
    shown: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  };
  console.log('kind | p50 ms | p99 ms | total (last run)');
  for (const [name, body] of KINDS) {
    const times = [];
    let total = 0;
    for (let i = 0; i < RUNS; i++) {
      const job = compileSearch(searchRequestFrom({ limit: 100, ...body(i) }), scope);
      started = performance.now();
      total = (await executor.run(job)).total;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)].toFixed(1);
    console.log(`${name} | ${at(0.5)} | ${at(0.99)} | ${total}`);
  }
  await executor.onModuleDestroy();
} finally {
  closeReadModelDatabase(db);
  rmSync(dir, { recursive: true, force: true });
}
