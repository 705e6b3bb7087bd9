// The soak: mixed traffic against the running service for minutes, watching whether its memory
// levels off and how long its event loop stalls. Selected with BENCH_ONLY=soak (it takes
// BENCH_SOAK_SECONDS, 900 by default); its section of docs/benchmarks.md is rewritten on its own.
//
// Why 15 minutes and not 10: the service's byte-bounded caches (stream cache 64 MiB, snapshots
// 32 MiB, live tail 16 MiB by default) fill at this traffic's write rate within about 5 minutes, and
// V8 sizes its heap for them over the minutes after that. A leak keeps growing after that; a cache at
// its bound does not. The slope is taken over the last 5 minutes, after both have settled.
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { readFileSync, writeFileSync } from 'node:fs';
import { rssOf } from './processes.mjs';
import { REDIRECT_URI } from './service.mjs';

/** Documented bounds (docs/benchmarks.md, "Soak"): the run fails them loudly, it does not hide them. */
export const SOAK_BOUNDS = {
  peakRssMiB: 768,
  /** RSS growth over the last 5 minutes of the run, least-squares slope. */
  lastFiveSlopeMiBPerMin: 2,
  /** Worst 5-second window's event-loop delay p99, beyond the monitor's 10 ms sampling interval. */
  eventLoopP99Ms: 100,
};

export const SOAK_METRICS_TOKEN = `soak-${randomBytes(12).toString('hex')}`;
// crm.objects.deals.read: one of the scopes of the calculated-properties limits GET.
const SCOPES = [
  'oauth',
  'crm.schemas.custom.read',
  'crm.objects.deals.read',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
];
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** prom-client's monitorEventLoopDelay resolution: every sample includes it (an idle loop reads ~10 ms). */
const MONITOR_RESOLUTION_MS = 10;

const mib = (bytes) => bytes / 1048576;

/** Accounts with a user each, the app installed in every one, and their tokens. */
async function installs(service, app, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const account = await service.admin('POST', '/admin/v1/accounts', {
      domain: `soak-${i}.example.com`,
      tier: 'enterprise',
    });
    const user = await service.admin('POST', '/admin/v1/users', {
      email: `soak-${i}@example.com`,
      password: randomBytes(12).toString('hex'),
      hubIds: [account.hubId],
    });
    const setup = { hubId: account.hubId, userId: user.userId, app };
    const tokens = await service.exchange(setup, await service.authorizationCode(setup));
    out.push({ hubId: account.hubId, ...tokens });
  }
  return out;
}

/** A property create with an enumeration of `bytes` of options (as large as the body limits allow). */
function propertyBody(name, bytes) {
  const label = 'x'.repeat(200);
  const count = Math.max(1, Math.floor(bytes / 260));
  return JSON.stringify({
    name,
    label: `Soak ${name}`,
    type: 'enumeration',
    fieldType: 'select',
    groupName: 'contactinformation',
    options: Array.from({ length: count }, (_, i) => ({ label: `${label}${i}`, value: `v${i}`, displayOrder: i })),
  });
}

function cannon(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ pipelining: 1, timeout: 10, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

/** One scrape of the service's /metrics (behind METRICS_TOKEN): the values the soak follows. */
async function scrape(service) {
  const r = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${SOAK_METRICS_TOKEN}` } });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}: ${text.slice(0, 200)}`);
  const value = (name) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };
  return {
    loopP99Ms: value('nodejs_eventloop_lag_p99_seconds') * 1000,
    loopMaxMs: value('nodejs_eventloop_lag_max_seconds') * 1000,
    heapUsed: value('nodejs_heap_size_used_bytes'),
    heapTotal: value('nodejs_heap_size_total_bytes'),
    external: value('nodejs_external_memory_bytes'),
  };
}

/** Anonymous and file-backed resident memory from /proc: which kind grows tells heap from mapped code. */
function rssKinds(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
    return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
  } catch {
    return { rssAnon: NaN, rssFile: NaN };
  }
}

/** Least-squares slope of (minutes, MiB) points. */
function slope(points) {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  const sxy = points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0);
  const sxx = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/**
 * `seconds` of mixed traffic: refresh grants, token metadata GETs, limits GETs and property creates
 * with large enumerations, each on its own connections, at once. Every 5 s: the service's RSS (from
 * /proc) and its event-loop delay (prom-client's monitorEventLoopDelay, read and reset by each scrape).
 */
export async function soak(service, { seconds, accounts = 20, writesPerSecond = 5, bodyBytes = 48 * 1024 }) {
  await service.start();
  await service.ready();
  const app = await service.admin('POST', '/admin/v1/apps', {
    developerHubId: (
      await service.admin('POST', '/admin/v1/accounts', { domain: 'soak-dev.example.com', tier: 'enterprise' })
    ).hubId,
    name: 'Soak app',
    redirectUrls: [REDIRECT_URI],
    requiredScopes: SCOPES,
    optionalScopes: [],
  });
  const tokens = await installs(service, app, accounts);
  const firstWrite = await fetch(`${service.url}/crm/v3/properties/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[0].access_token}`, 'content-type': 'application/json' },
    body: propertyBody('soak_probe', bodyBytes),
  });
  if (firstWrite.status !== 201) {
    throw new Error(
      `a property write of ${bodyBytes} bytes answered ${firstWrite.status}: ${(await firstWrite.text()).slice(0, 300)}`,
    );
  }

  let i = 0;
  const next = () => tokens[i++ % tokens.length];
  let written = 0;
  const traffic = {
    refresh: {
      connections: 8,
      url: `${service.url}/oauth/v1/token`,
      requests: [
        {
          method: 'POST',
          headers: FORM,
          setupRequest: (req) => ({
            ...req,
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              client_id: app.clientId,
              client_secret: app.clientSecret,
              refresh_token: next().refresh_token,
            }).toString(),
          }),
        },
      ],
    },
    metadata: {
      connections: 4,
      url: service.url,
      requests: [
        { method: 'GET', setupRequest: (req) => ({ ...req, path: `/oauth/v1/access-tokens/${next().access_token}` }) },
      ],
    },
    limits: {
      connections: 4,
      url: service.url,
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => ({
            ...req,
            path: i % 2 ? '/crm/v3/limits/custom-object-types' : '/crm/v3/limits/calculated-properties',
            headers: { authorization: `Bearer ${next().access_token}` },
          }),
        },
      ],
    },
    propertyWrites: {
      connections: 2,
      overallRate: writesPerSecond,
      url: `${service.url}/crm/v3/properties/contacts`,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => {
            const n = written++;
            return {
              ...req,
              headers: {
                'content-type': 'application/json',
                authorization: `Bearer ${tokens[n % tokens.length].access_token}`,
              },
              body: propertyBody(`soak_${Math.floor(n / tokens.length)}`, bodyBytes),
            };
          },
        },
      ],
    },
  };

  const samples = [];
  const began = performance.now();
  await scrape(service); // resets the loop-delay histogram: the first window starts with the load
  const sampler = setInterval(async () => {
    const at = (performance.now() - began) / 60_000;
    try {
      samples.push({ at, rss: rssOf(service.pid), ...rssKinds(service.pid), ...(await scrape(service)) });
    } catch (error) {
      samples.push({ at, rss: rssOf(service.pid), error: String(error) });
    }
  }, 5000);
  let runs;
  try {
    runs = await Promise.all(
      Object.entries(traffic).map(async ([name, options]) => [name, await cannon({ ...options, duration: seconds })]),
    );
  } finally {
    clearInterval(sampler);
  }
  const ok = samples.filter((s) => !s.error);
  const lastFive = ok.filter((s) => s.at >= seconds / 60 - 5);
  const slopeOf = (key, window = lastFive) => slope(window.map((s) => [s.at, mib(s[key])]));
  if (process.env.BENCH_SOAK_SERIES) writeFileSync(process.env.BENCH_SOAK_SERIES, JSON.stringify(samples));
  const loopP99s = ok.map((s) => Math.max(0, s.loopP99Ms - MONITOR_RESOLUTION_MS));
  const result = {
    seconds,
    accounts,
    writesPerSecond,
    bodyBytes,
    samples: samples.length,
    failedScrapes: samples.length - ok.length,
    peakRss: Math.max(...samples.map((s) => s.rss)),
    firstRss: samples[0]?.rss ?? 0,
    lastRss: samples.at(-1)?.rss ?? 0,
    rssSlopeMiBPerMin: slopeOf('rss'),
    /** RSS at the end of each minute: the whole curve, not only the slope of its end. */
    rssByMinute: Array.from({ length: Math.floor(seconds / 60) }, (_, m) => {
      const last = ok.filter((s) => s.at <= m + 1).at(-1);
      return last ? Math.round(mib(last.rss)) : NaN;
    }),
    lastFive: {
      rss: slopeOf('rss'),
      rssAnon: slopeOf('rssAnon'),
      rssFile: slopeOf('rssFile'),
      heapUsed: slopeOf('heapUsed'),
      heapTotal: slopeOf('heapTotal'),
      external: slopeOf('external'),
    },
    loopP99WorstMs: Math.max(...loopP99s),
    loopP99MedianMs: percentile(loopP99s, 50),
    loopMaxMs: Math.max(...ok.map((s) => s.loopMaxMs)),
    traffic: Object.fromEntries(
      runs.map(([name, r]) => [
        name,
        {
          ok: r['2xx'],
          failed: r.non2xx + r.errors + r.timeouts,
          reqPerSec: r['2xx'] / r.duration,
          p99: r.latency.p99,
        },
      ]),
    ),
  };
  result.met = {
    peakRss: mib(result.peakRss) <= SOAK_BOUNDS.peakRssMiB,
    slope: result.rssSlopeMiBPerMin <= SOAK_BOUNDS.lastFiveSlopeMiBPerMin,
    loop: result.loopP99WorstMs <= SOAK_BOUNDS.eventLoopP99Ms,
  };
  return result;
}

export function printSoak(r) {
  console.log(
    `  soak ${r.seconds} s, ${r.accounts} accounts, ${r.writesPerSecond} property writes/s of ${r.bodyBytes} bytes`,
  );
  for (const [name, t] of Object.entries(r.traffic)) {
    console.log(
      `    ${name.padEnd(16)} ${t.reqPerSec.toFixed(0).padStart(6)} req/s  p99 ${String(t.p99).padStart(4)} ms  ${t.ok} 2xx  ${t.failed ? `FAILED ${t.failed}` : ''}`,
    );
  }
  console.log(
    `    peak RSS ${mib(r.peakRss).toFixed(0)} MiB (first sample ${mib(r.firstRss).toFixed(0)}, last ${mib(r.lastRss).toFixed(0)})`,
  );
  console.log(`    RSS (MiB) at the end of each minute: ${r.rssByMinute.join(' ')}`);
  const f = r.lastFive;
  console.log(
    `    slopes over the last 5 min (MiB/min): RSS ${f.rss.toFixed(2)} (anonymous ${f.rssAnon.toFixed(2)}, file ${f.rssFile.toFixed(2)}); heap used ${f.heapUsed.toFixed(2)}, heap total ${f.heapTotal.toFixed(2)}, external ${f.external.toFixed(2)}`,
  );
  console.log(
    `    event-loop delay p99 per 5 s window: worst ${r.loopP99WorstMs.toFixed(1)} ms, median ${r.loopP99MedianMs.toFixed(1)} ms; max ${r.loopMaxMs.toFixed(0)} ms`,
  );
}

const yes = (met) => (met ? 'yes' : '**no**');

/** The "Soak" section of docs/benchmarks.md (between its markers). */
export function soakMarkdown(r, measuredAt, fastifyRss) {
  const rows = Object.entries(r.traffic).map(
    ([name, t]) =>
      `| ${name} | ${Math.round(t.reqPerSec).toLocaleString('en-US')} | ${t.p99} | ${t.ok.toLocaleString('en-US')}${t.failed ? ` (${t.failed} failed)` : ''} |`,
  );
  return [
    SOAK_START,
    '## Soak',
    '',
    `Measured ${measuredAt} (\`BENCH_ONLY=soak\`, \`BENCH_SOAK_SECONDS=${r.seconds}\`): ${r.seconds} s of mixed traffic on`,
    `\`node dist/main.js\` (SQLite store), ${r.accounts} accounts with the app installed, all four kinds at once on`,
    'their own connections: refresh grants (8), access-token metadata GETs (4), limits GETs (4), and',
    `property creates (2 connections, ${r.writesPerSecond}/s) each carrying an enumeration of about ${Math.round(r.bodyBytes / 1024)} KiB.`,
    "Every 5 s: the service's RSS (/proc) and its event-loop delay (prom-client's `monitorEventLoopDelay`,",
    'scraped from `/metrics` with `METRICS_TOKEN`; each scrape reads and resets it, so each sample is one',
    '5-second window; the 10 ms sampling interval is subtracted).',
    '',
    '| traffic | req/s | p99 ms | 2xx answers |',
    '| --- | ---: | ---: | ---: |',
    ...rows,
    '',
    '| figure | value | bound | met |',
    '| --- | ---: | ---: | --- |',
    `| peak RSS | ${mib(r.peakRss).toFixed(0)} MiB${fastifyRss ? ` (${(r.peakRss / fastifyRss).toFixed(1)}× bare Fastify's ${mib(fastifyRss).toFixed(0)} MiB under GET load)` : ''} | ≤ ${SOAK_BOUNDS.peakRssMiB} MiB | ${yes(r.met.peakRss)} |`,
    `| RSS slope over the last 5 minutes (least squares) | ${r.rssSlopeMiBPerMin.toFixed(2)} MiB/min (anonymous ${r.lastFive.rssAnon.toFixed(2)}, file-backed ${r.lastFive.rssFile.toFixed(2)}; V8 heap used ${r.lastFive.heapUsed.toFixed(2)}, heap total ${r.lastFive.heapTotal.toFixed(2)}, external ${r.lastFive.external.toFixed(2)}) | ≤ ${SOAK_BOUNDS.lastFiveSlopeMiBPerMin} MiB/min | ${yes(r.met.slope)} |`,
    `| event-loop delay p99, worst 5 s window | ${r.loopP99WorstMs.toFixed(1)} ms (median window ${r.loopP99MedianMs.toFixed(1)} ms, max single delay ${r.loopMaxMs.toFixed(0)} ms) | ≤ ${SOAK_BOUNDS.eventLoopP99Ms} ms | ${yes(r.met.loop)} |`,
    '',
    `RSS: ${mib(r.firstRss).toFixed(0)} MiB at the first sample, ${mib(r.lastRss).toFixed(0)} MiB at the last (${r.samples} samples${r.failedScrapes ? `, ${r.failedScrapes} scrapes failed` : ''}); at the end of each minute: ${r.rssByMinute.join(', ')} MiB.`,
    'Throughput here is not comparable with the load table above (four kinds share two cores); the ratio',
    'convention applies to RSS only, against bare Fastify measured in the same invocation.',
    SOAK_END,
  ].join('\n');
}

export const SOAK_START = '<!-- soak:start -->';
export const SOAK_END = '<!-- soak:end -->';

/** `doc` with its soak section replaced by `section` (or the existing one kept when `section` is undefined). */
export function withSoakSection(doc, section, previous) {
  const keep = section ?? sectionOf(previous);
  // In place when the doc has a section (the text around it stays where it is).
  if (keep && sectionOf(doc)) return doc.replace(new RegExp(`${SOAK_START}[\\s\\S]*?${SOAK_END}`), () => keep);
  const without = doc.replace(new RegExp(`\\n?${SOAK_START}[\\s\\S]*?${SOAK_END}\\n?`), '\n');
  if (!keep) return without;
  const anchor = '\n## How to read these figures';
  return without.includes(anchor)
    ? without.replace(anchor, `\n${keep}\n${anchor}`)
    : `${without.trimEnd()}\n\n${keep}\n`;
}

function sectionOf(doc) {
  if (!doc) return undefined;
  const m = new RegExp(`${SOAK_START}[\\s\\S]*?${SOAK_END}`).exec(doc);
  return m ? m[0] : undefined;
}
