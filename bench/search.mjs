// `node scripts/with-build.mjs bench/search.mjs`: CRM search over 100,000 contacts of one account
// (issue 37's bench), in two parts.
// 1. In process: the search read model filled through its projection, then each kind of search run on
//    the search thread (SearchExecutor: worker with a read-only connection), p50/p99 per kind; then the
//    same searches once more on this thread's own read-only connection for the CPU time each takes
//    (process.threadCpuUsage: what a lever changes, less moved by a loaded host than wall time).
// 2. Through HTTP (the service as `npm start` runs it): contacts loaded by batch create, the process's
//    first search timed apart (it starts the search thread), then searches at 5 a second (HubSpot's
//    search limit) alone, and the refresh grant measured alone and while those searches arrive.
// 3. The main thread's share of a search through HTTP: the app in this process (its own data directory,
//    contacts loaded by batch create through `inject`), each kind run one after another through Fastify's
//    `inject`, this thread's CPU per search (process.threadCpuUsage: routing, auth, validation, the
//    compile, the answer built and serialized; the search thread's work is not on it).
// SEARCH_BENCH_CONTACTS and SEARCH_BENCH_RUNS size part 1, SEARCH_BENCH_HTTP_CONTACTS part 2,
// SEARCH_BENCH_CPU_CONTACTS and SEARCH_BENCH_CPU_RUNS part 3 (0 contacts: that part skipped).
// An A/B in one sitting: SEARCH_BENCH_DIST=<another build's dist/> for parts 1 and 3, BENCH_SERVICE_MAIN for part 2.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval, setTimeout } from 'node:timers';
import { ROOT, Service } from './lib/service.mjs';
import { refreshGrant } from './lib/tokens.mjs';

const require = createRequire(import.meta.url);
const DIST = process.env.SEARCH_BENCH_DIST ?? join(ROOT, 'dist');
const dist = (p) => require(join(DIST, p));
const { CrmSearchProjection } = dist('crm-search/projections/crm-search.projection.js');
const { SearchExecutor } = dist('crm-search/application/search-executor.js');
const { compileSearch } = dist('crm-search/application/search-compiler.js');
// What the search thread runs per search: the page read and shaped (answerSearchJob), or before it existed the read alone.
const searchReader = dist('crm-search/application/search-reader.js');
const searchThreadJob = searchReader.answerSearchJob ?? searchReader.runSearchJob;
const { searchRequestFrom } = dist('crm-search/domain/search-request.js');
const { kindOfPropertyType } = dist('crm-search/domain/search-values.js');
const { openReadModelDatabase, closeReadModelDatabase } = dist('platform/projections/read-model-database.js');
const Database = require('better-sqlite3');

const HUB = 4242;
const COUNT = Number(process.env.SEARCH_BENCH_CONTACTS ?? 100_000);
const RUNS = Number(process.env.SEARCH_BENCH_RUNS ?? 100);
const HTTP_CONTACTS = Number(process.env.SEARCH_BENCH_HTTP_CONTACTS ?? 100_000);
const CPU_CONTACTS = Number(process.env.SEARCH_BENCH_CPU_CONTACTS ?? 20_000);
const CPU_RUNS = Number(process.env.SEARCH_BENCH_CPU_RUNS ?? 300);
const SEARCHES_PER_SECOND = 5;
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

/** Contact `n` (1-based), the same in both parts: every value the searches below look for. */
function contact(n) {
  const properties = {
    email: `person${n}@${n % 7 === 0 ? 'example.org' : 'example.com'}`,
    firstname: FIRST[n % FIRST.length],
    lastname: `Family${(n * 7919) % 500}`,
    lifecyclestage: STAGES[n % STAGES.length],
    score: String((n * 104729) % 1000),
  };
  if (n % 3 === 0) properties.phone = `+1 555 ${String(n).padStart(6, '0')}`;
  return properties;
}

function fill(db) {
  const projection = new CrmSearchProjection();
  projection.setup(db);
  const batch = db.transaction((from, to) => {
    for (let id = from; id < to; id++) {
      projection.apply(
        {
          type: 'crm.RecordCreated',
          data: {
            hubId: HUB,
            objectTypeId: '0-1',
            id,
            properties: contact(id),
            createdAt: T0 + id * 1000,
            appId: 1,
            userId: null,
          },
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
/** Each kind: its name, the target's class (issue 37), a request body per run `i` given the first id. */
const KINDS = [
  [
    'selective: EQ email',
    15,
    (i, _first, count) => filter('email', 'EQ', { value: `person${(i * 997) % count}@example.com` }),
  ],
  [
    'selective: id keyset (GT, sorted by id)',
    15,
    (i, first, count) => ({
      ...filter('hs_object_id', 'GT', { value: String(first - 1 + ((i * 991) % count)) }),
      sorts: [{ propertyName: 'hs_object_id' }],
    }),
  ],
  [
    'selective: range sorted on the same property',
    15,
    (i) => ({
      ...filter('score', 'BETWEEN', { value: String(i % 900), highValue: String((i % 900) + 5) }),
      sorts: [{ propertyName: 'score' }],
    }),
  ],
  [
    'broad: EQ stage, sorted on createdate',
    60,
    (i) => ({
      ...filter('lifecyclestage', 'EQ', { value: STAGES[i % STAGES.length] }),
      sorts: [{ propertyName: 'createdate', direction: 'DESCENDING' }],
    }),
  ],
  [
    'broad: EQ stage, sorted on score',
    60,
    (i) => ({
      ...filter('lifecyclestage', 'EQ', { value: STAGES[i % STAGES.length] }),
      sorts: [{ propertyName: 'score', direction: 'DESCENDING' }],
    }),
  ],
  ['broad: query (word prefix)', 60, (i) => ({ query: FIRST[i % FIRST.length].slice(0, 3) })],
  [
    'broad: last page before 10,000',
    60,
    (i) => ({ ...filter('lifecyclestage', 'NEQ', { value: STAGES[i % STAGES.length] }), after: 9900, limit: 100 }),
  ],
  [
    'broad: two OR groups',
    60,
    (i) => ({
      filterGroups: [
        filter('firstname', 'EQ', { value: FIRST[i % FIRST.length] }).filterGroups[0],
        filter('score', 'GT', { value: '990' }).filterGroups[0],
      ],
    }),
  ],
  ['negation: NEQ', 150, (i) => filter('lifecyclestage', 'NEQ', { value: STAGES[i % STAGES.length] })],
  [
    'negation: NOT_IN',
    150,
    (i) => filter('lifecyclestage', 'NOT_IN', { values: [STAGES[i % 6], STAGES[(i + 1) % 6]] }),
  ],
  ['negation: NOT_HAS_PROPERTY', 150, () => filter('phone', 'NOT_HAS_PROPERTY')],
];

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const at = (xs, q) => {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const ms = (x) => x.toFixed(1);

/** Part 1: the search thread, then CPU per search on this thread. */
async function inProcess() {
  const dir = mkdtempSync(join(tmpdir(), 'search-bench-'));
  const file = join(dir, 'readmodels.sqlite');
  const db = openReadModelDatabase(file);
  try {
    let started = performance.now();
    fill(db);
    console.log(`${COUNT} contacts indexed in ${((performance.now() - started) / 1000).toFixed(1)} s (${DIST})`);
    const executor = new SearchExecutor(db);
    // The search thread's own settings, on a connection of this thread: the CPU pass.
    const reader = new Database(file, { readonly: true, fileMustExist: true });
    reader.pragma('temp_store = MEMORY');
    reader.pragma('cache_size = -32768');
    reader.pragma('mmap_size = 268435456');
    const scope = {
      hubId: HUB,
      objectTypeId: '0-1',
      kindOf: (p) => kindOfPropertyType(TYPES[p]),
      searchable: ['firstname', 'lastname', 'email', 'phone'],
      visibleAsOf: null,
      shown: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
    };
    console.log('kind | p50 ms | p99 ms | CPU ms per search (mean, this thread) | total (last run) | p99 target ms');
    for (const [name, target, body] of KINDS) {
      const times = [];
      let total = 0;
      const job = (i) => compileSearch(searchRequestFrom({ limit: 100, ...body(i, 1, COUNT) }), scope);
      for (let i = 0; i < RUNS; i++) {
        const compiled = job(i);
        started = performance.now();
        total = (await executor.run(compiled)).total;
        times.push(performance.now() - started);
      }
      const cpu = process.threadCpuUsage();
      for (let i = 0; i < RUNS; i++) searchThreadJob(reader, job(i));
      const used = process.threadCpuUsage(cpu);
      const cpuMs = (used.user + used.system) / 1000 / RUNS;
      console.log(`${name} | ${ms(at(times, 0.5))} | ${ms(at(times, 0.99))} | ${ms(cpuMs)} | ${total} | ${target}`);
    }
    reader.close();
    await executor.onModuleDestroy();
  } finally {
    closeReadModelDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Searches at `perSecond` through HTTP until `stop()`; resolves their latencies per kind. */
function searchesAt(service, auth, first, perSecond, kinds) {
  const latencies = new Map(kinds.map(([name]) => [name, []]));
  const failures = [];
  const inFlight = new Set();
  let i = 0;
  const timer = setInterval(() => {
    const [name, , body] = kinds[i % kinds.length];
    const n = Math.floor(i / kinds.length);
    i++;
    const t0 = performance.now();
    const call = service
      .call('POST', '/crm/v3/objects/contacts/search', {
        body: { limit: 100, ...body(n, first, HTTP_CONTACTS) },
        headers: auth,
      })
      .then((r) => {
        if (r.status !== 200) failures.push(`${name}: ${r.status} ${r.text.slice(0, 200)}`);
        else latencies.get(name).push(performance.now() - t0);
      })
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  }, 1000 / perSecond);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
    if (failures.length > 0) throw new Error(`searches failed:\n${failures.slice(0, 5).join('\n')}`);
    return latencies;
  };
}

function report(title, latencies) {
  const all = [...latencies.values()].flat();
  console.log(`${title}: ${all.length} searches, p50 ${ms(at(all, 0.5))} ms, p99 ${ms(at(all, 0.99))} ms`);
  for (const [name, xs] of latencies) {
    if (xs.length > 0)
      console.log(`  ${name}: n ${xs.length}, p50 ${ms(at(xs, 0.5))} ms, max ${ms(Math.max(...xs))} ms`);
  }
}

/** Part 2: the service, its contacts loaded through batch create; the refresh grant with and without searches. */
async function throughHttp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'search-bench-http-'));
  const service = new Service({ dataDir });
  try {
    await service.start();
    await service.ready();
    const setup = await service.createDeveloperSetup({
      scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.schemas.contacts.write'],
    });
    const tokens = await service.exchange(setup, await service.authorizationCode(setup));
    const auth = { authorization: `Bearer ${tokens.access_token}` };
    const score = await service.call('POST', '/crm/v3/properties/contacts', {
      body: { name: 'score', label: 'Score', type: 'number', fieldType: 'number', groupName: 'contactinformation' },
      headers: auth,
    });
    if (score.status !== 201) throw new Error(`property create answered ${score.status}: ${score.text}`);
    const began = performance.now();
    let next = 0;
    let first = Infinity;
    const load = async () => {
      while (next < HTTP_CONTACTS) {
        const from = next;
        next += 100;
        const inputs = Array.from({ length: Math.min(100, HTTP_CONTACTS - from) }, (_, k) => ({
          properties: contact(from + k + 1),
        }));
        const r = await service.call('POST', '/crm/v3/objects/contacts/batch/create', {
          body: { inputs },
          headers: auth,
        });
        if (r.status !== 201) throw new Error(`batch create answered ${r.status}: ${r.text.slice(0, 300)}`);
        for (const c of r.json.results) first = Math.min(first, Number(c.id));
      }
    };
    await Promise.all(Array.from({ length: 4 }, load));
    console.log(
      `\n${HTTP_CONTACTS} contacts through batch create in ${((performance.now() - began) / 1000).toFixed(1)} s`,
    );
    // The process's first search starts the search thread (once per process, docs/search.md): timed
    // apart, not counted in the steady state below.
    const warmUp = performance.now();
    const firstSearch = await service.call('POST', '/crm/v3/objects/contacts/search', {
      body: { limit: 100, ...filter('email', 'EQ', { value: `person${HTTP_CONTACTS}@example.com` }) },
      headers: auth,
    });
    if (firstSearch.status !== 200) throw new Error(`the first search answered ${firstSearch.status}`);
    console.log(
      `the process's first search (starts the search thread; not counted below): ${ms(performance.now() - warmUp)} ms`,
    );
    // The kinds whose properties a contact has at HubSpot (and `score`, created above); ids from the first one.
    const alone = searchesAt(service, auth, first, SEARCHES_PER_SECOND, KINDS);
    await new Promise((resolve) => setTimeout(resolve, (KINDS.length * 6 * 1000) / SEARCHES_PER_SECOND));
    report(`searches at ${SEARCHES_PER_SECOND}/s through HTTP, alone`, await alone());
    // Alternated, as the host's load drifts: alone, with searches, alone, with searches.
    const quiet = [];
    const busy = [];
    const during = new Map(KINDS.map(([name]) => [name, []]));
    for (let round = 1; round <= 2; round++) {
      quiet.push(await refreshGrant(service, setup, tokens.refresh_token, 'v1', `, no searches (${round})`));
      const stop = searchesAt(service, auth, first, SEARCHES_PER_SECOND, KINDS);
      busy.push(
        await refreshGrant(
          service,
          setup,
          tokens.refresh_token,
          'v1',
          `, searches at ${SEARCHES_PER_SECOND}/s (${round})`,
        ),
      );
      for (const [name, xs] of await stop()) during.get(name).push(...xs);
    }
    report(`searches at ${SEARCHES_PER_SECOND}/s through HTTP, during the refresh grant's load`, during);
    const line = (runs) =>
      runs.map((r) => `p99 ${r.p99} ms p50 ${r.p50} ms ${r.reqPerSec.toFixed(0)} req/s`).join('; ');
    console.log(`refresh grant alone: ${line(quiet)}\nrefresh grant with searches: ${line(busy)}`);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Part 3: main-thread CPU per search through the app's HTTP stack, in this process. */
async function mainThreadShare() {
  require('reflect-metadata');
  const { createApp } = dist('app.factory.js');
  const { featureModules } = dist('feature-modules.js');
  const { loadConfig } = dist('platform/config/config.js');
  const { systemClock } = dist('platform/clock.js');
  const { createLogger } = dist('platform/logging/logger.js');
  const { SigningKeyring, encodeAccessToken } = dist('oauth/domain/access-token.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'search-bench-cpu-'));
  const adminKey = 'bench-admin-key-0123456789abcdef';
  const config = loadConfig({
    ADMIN_API_KEY: adminKey,
    SEED: 'none',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENABLED: 'false',
  });
  const app = await createApp({
    config,
    clock: systemClock,
    modules: featureModules(),
    logger: createLogger('silent'),
  });
  try {
    await app.init();
    const fastify = app.getHttpAdapter().getInstance();
    const call = async (method, url, body, headers = {}) => {
      const r = await fastify.inject({
        method,
        url,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: r.statusCode, body: r.body };
    };
    const account = await call(
      'POST',
      '/admin/v1/accounts',
      { domain: 'bench.example.com', tier: 'enterprise' },
      {
        authorization: `Bearer ${adminKey}`,
      },
    );
    const { hubId } = JSON.parse(account.body);
    const now = Date.now();
    const token = encodeAccessToken(
      {
        hubId,
        userId: 1,
        appId: 1,
        installingUserId: 1,
        hublet: 'na1',
        issuedAt: now,
        expiresAt: now + 86_400_000,
        scopes: ['crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.schemas.contacts.write'],
      },
      app.get(SigningKeyring),
    ).token;
    const auth = { authorization: `Bearer ${token}` };
    const score = await call(
      'POST',
      '/crm/v3/properties/contacts',
      { name: 'score', label: 'Score', type: 'number', fieldType: 'number', groupName: 'contactinformation' },
      auth,
    );
    if (score.status !== 201) throw new Error(`property create answered ${score.status}: ${score.body}`);
    let first = Infinity;
    const began = performance.now();
    for (let from = 0; from < CPU_CONTACTS; from += 100) {
      const inputs = Array.from({ length: Math.min(100, CPU_CONTACTS - from) }, (_, k) => ({
        properties: contact(from + k + 1),
      }));
      const r = await call('POST', '/crm/v3/objects/contacts/batch/create', { inputs }, auth);
      if (r.status !== 201) throw new Error(`batch create answered ${r.status}: ${r.body.slice(0, 300)}`);
      for (const c of JSON.parse(r.body).results) first = Math.min(first, Number(c.id));
    }
    while ((await call('GET', '/health/ready')).status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(
      `\n${CPU_CONTACTS} contacts through batch create (in process) in ${((performance.now() - began) / 1000).toFixed(1)} s (${DIST})`,
    );
    // SEARCH_BENCH_CPU_PROFILE=<file>: a CPU profile of this thread over the searches only (bench/summarize-profile.mjs).
    const profiling = process.env.SEARCH_BENCH_CPU_PROFILE;
    const session = profiling ? new (await import('node:inspector/promises')).Session() : null;
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    }
    console.log('kind | main-thread CPU µs per search (mean) | p50 µs | wall p50 / p99 ms | answer bytes');
    for (const [name, , body] of KINDS) {
      const cpu = [];
      const wall = [];
      let bytes = 0;
      for (let i = 0; i < CPU_RUNS + 20; i++) {
        const payload = { limit: 100, ...body(i, first, CPU_CONTACTS) };
        const c0 = process.threadCpuUsage();
        const t0 = performance.now();
        const r = await call('POST', '/crm/v3/objects/contacts/search', payload, auth);
        const used = process.threadCpuUsage(c0);
        if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.body.slice(0, 200)}`);
        if (i < 20) continue; // warm-up
        wall.push(performance.now() - t0);
        cpu.push(used.user + used.system);
        bytes = r.body.length;
      }
      const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
      console.log(
        `${name} | ${mean.toFixed(0)} | ${at(cpu, 0.5)} | ${ms(at(wall, 0.5))} / ${ms(at(wall, 0.99))} | ${bytes}`,
      );
    }
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(profiling, JSON.stringify(profile));
      session.disconnect();
    }
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (COUNT > 0) await inProcess();
if (HTTP_CONTACTS > 0) await throughHttp();
if (CPU_CONTACTS > 0) await mainThreadShare();
