// `node scripts/with-build.mjs bench/console.mjs`: the console's render time on a large history (issue
// 43), apart from `npm run bench` (whose report it does not change). BENCH_RECORDS contacts (default
// 100,000) are loaded through batch create — each a crm.RecordCreated and more, so the feed holds well
// over 10,000 events — then each page is fetched signed in, 30 times, timed from request to the last
// byte (the server's render and the loopback transfer): the newest events, events deep in the
// history (keyset `before`), events filtered by account, type, correlation id and their combinations
// (the console's index), the first and a deep page of the account's records, and records found by
// search. BENCH_KEEP_DATA=1 keeps the data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpuOf } from './lib/processes.mjs';
import { Service } from './lib/service.mjs';

const CONTACTS = Number(process.env.BENCH_RECORDS ?? 100_000);
const RUNS = 30;
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-console-'));
const service = new Service({ dataDir });
try {
  await service.start();
  await service.ready();
  const setup = await service.createDeveloperSetup({
    scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'],
  });
  const { access_token: token } = await service.exchange(setup, await service.authorizationCode(setup));
  let next = 0;
  const began = performance.now();
  const worker = async () => {
    while (next < CONTACTS) {
      const from = next;
      next += 100;
      const inputs = Array.from({ length: Math.min(100, CONTACTS - from) }, (_, i) => ({
        properties: { email: `c${from + i}@bench.example.com`, firstname: 'Bench', lastname: `No ${from + i}` },
      }));
      const r = await service.call('POST', '/crm/v3/objects/contacts/batch/create', {
        body: { inputs },
        headers: { authorization: `Bearer ${token}` },
      });
      if (r.status !== 201) throw new Error(`batch create answered ${r.status}: ${r.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  console.log(`loaded ${CONTACTS} contacts in ${((performance.now() - began) / 1000).toFixed(1)} s`);

  // Sign in as a browser does: the form's CSRF token and cookie, then the admin key.
  const form = await fetch(`${service.url}/console/sign-in`);
  let cookie = form.headers.getSetCookie()[0].split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())[1];
  const signIn = await fetch(`${service.url}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, adminKey: service.adminKey }).toString(),
  });
  if (signIn.status !== 303) throw new Error(`sign-in answered ${signIn.status}`);
  cookie = signIn.headers.getSetCookie()[0].split(';')[0];

  const { position: feedHead, correlationId: batchCorrelation } = await newestEvent();
  // An account with no events among the newest: its filter reads the whole scan budget for one page.
  const quiet = await service.admin('POST', '/admin/v1/accounts', { domain: 'quiet.example.com', tier: 'free' });
  const pages = [
    ['events, newest 50', '/console/events'],
    ['events, 50 before the middle of the feed (keyset)', `/console/events?before=${Math.floor(feedHead / 2)}`],
    ['events of the account (account index)', `/console/events?hubId=${setup.hubId}`],
    [
      'events of an account with none among the newest (account index: nothing to read)',
      `/console/events?hubId=${quiet.hubId}&before=${feedHead}`,
    ],
    [
      'events of the account and a correlation id none has (index intersection)',
      `/console/events?hubId=${setup.hubId}&correlationId=nobody`,
    ],
    [
      'events of one correlation id (the last batch create: index)',
      `/console/events?correlationId=${encodeURIComponent(batchCorrelation)}`,
    ],
    [
      'events of the account, a type and a correlation id (index intersection)',
      `/console/events?hubId=${setup.hubId}&type=crm.RecordCreated&correlationId=${encodeURIComponent(batchCorrelation)}`,
    ],
    [
      'events of the account and a type none of its events has (index intersection)',
      `/console/events?hubId=${setup.hubId}&type=app.Installed`,
    ],
    ['events of one type (type index)', '/console/events?type=crm.RecordCreated'],
    ['records, first 100', `/console/records?hubId=${setup.hubId}&type=0-1`],
    ['records, 100 after id 90,000 (keyset)', `/console/records?hubId=${setup.hubId}&type=0-1&after=90000`],
    [
      'records, search text c77@bench.example.com (c77*: 1,111 matches; its other words every contact)',
      `/console/records?hubId=${setup.hubId}&type=0-1&q=c77%40bench.example.com`,
    ],
    [
      'records, search text bench (every contact: no small set, id walk)',
      `/console/records?hubId=${setup.hubId}&type=0-1&q=bench`,
    ],
    [
      'records, property filter (lastname EQ, one match)',
      `/console/records?hubId=${setup.hubId}&type=0-1&property=lastname&operator=EQ&value=No%2077`,
    ],
  ];
  console.log(`feed head: position ${feedHead}`);
  // The server's CPU time per request (all its threads, /proc ticks over the page's runs): what a page
  // costs the server whatever else the machine runs, where wall times under load also wait for a core.
  console.log('| page | p50 ms | max ms | server CPU ms/request | bytes |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, path] of pages) {
    const times = [];
    let bytes = 0;
    const cpuBefore = cpuOf(service.pid).process;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const r = await fetch(`${service.url}${path}`, { headers: { cookie } });
      const body = await r.text();
      times.push(performance.now() - t0);
      if (r.status !== 200) throw new Error(`${path} answered ${r.status}: ${body.slice(0, 300)}`);
      bytes = body.length;
    }
    const cpuMs = ((cpuOf(service.pid).process - cpuBefore) * 1000) / RUNS;
    times.sort((a, b) => a - b);
    console.log(
      `| ${name} | ${quantile(times, 0.5).toFixed(1)} | ${times.at(-1).toFixed(1)} | ${cpuMs.toFixed(1)} | ${bytes} |`,
    );
  }

  async function newestEvent() {
    // The newest event's position and correlation id, from the console's own newest page.
    const r = await fetch(`${service.url}/console/events`, { headers: { cookie } });
    const body = await r.text();
    const m = /<tr>\s*<td>(\d+)<\/td>/.exec(body);
    const c = /correlationId=([^"&]+)"/.exec(body);
    return { position: m ? Number(m[1]) : 0, correlationId: c ? decodeURIComponent(c[1]) : 'none' };
  }
} finally {
  await service.stop();
  // BENCH_KEEP_DATA=1: the loaded data directory stays (its read models can then be queried by hand).
  if (process.env.BENCH_KEEP_DATA) console.log(`data kept in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
