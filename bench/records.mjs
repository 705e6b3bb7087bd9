// `node scripts/with-build.mjs bench/records.mjs`: the CRM records figures of issue 36, apart from
// `npm run bench` (whose report they do not change): 100,000 contacts loaded through batch create at
// 4 connections (each batch's latency; p99 after the first 20), GET by id against the NestJS
// one-route reference in the same sitting, the crm-records read model rebuilt from zero, peak RSS.
// Event-loop CPU per batch and per GET (less moved by a loaded host than latencies), and the limits
// GET in the same process as the shared pipeline's cost. BENCH_RECORDS: how many contacts (default
// 100,000); BENCH_PROFILE_DIR: CPU profiles of the load and of the GET (bench/summarize-profile.mjs);
// BENCH_SERVICE_MAIN: another build (its rebuild CLI too), for an A/B in one sitting.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { measure } from './lib/load.mjs';
import { cpuOf, sampleRss, spawnJsonServer, stop } from './lib/processes.mjs';
import { ROOT, SERVICE_NODE_OPTIONS, Service } from './lib/service.mjs';

const CONTACTS = Number(process.env.BENCH_RECORDS ?? 100_000);
const CONNECTIONS = 4;
const mib = (bytes) => `${(bytes / 1048576).toFixed(0)} MiB`;
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-records-'));
const service = new Service({ dataDir });
try {
  await service.start();
  await service.ready();
  const setup = await service.createDeveloperSetup({
    scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.schemas.custom.read'],
  });
  const { access_token: token } = await service.exchange(setup, await service.authorizationCode(setup));
  const auth = { authorization: `Bearer ${token}` };

  // 1. The load: batches of 100, CONNECTIONS in flight.
  const rss = sampleRss(service.pid);
  // With BENCH_PROFILE_DIR: a CPU profile of the whole load (bench/profile-preload.cjs).
  if (process.env.BENCH_PROFILE_DIR) process.kill(service.pid, 'SIGWINCH');
  const loopBefore = cpuOf(service.pid);
  const latencies = [];
  let next = 0;
  const began = performance.now();
  const worker = async () => {
    while (next < CONTACTS) {
      const from = next;
      next += 100;
      const inputs = Array.from({ length: Math.min(100, CONTACTS - from) }, (_, i) => ({
        properties: { email: `c${from + i}@bench.example.com`, firstname: 'Bench', lastname: `No ${from + i}` },
      }));
      const t0 = performance.now();
      const r = await service.call('POST', '/crm/v3/objects/contacts/batch/create', {
        body: { inputs },
        headers: auth,
      });
      if (r.status !== 201) throw new Error(`batch create answered ${r.status}: ${r.text.slice(0, 300)}`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const loadSeconds = (performance.now() - began) / 1000;
  const loopAfter = cpuOf(service.pid);
  if (process.env.BENCH_PROFILE_DIR) process.kill(service.pid, 'SIGWINCH');
  const loadRss = rss.stop();
  // Event-loop CPU per batch of 100 (the service's main thread; the store's writer thread apart):
  // what the code costs, less moved by a loaded host than the latencies.
  const batches = Math.ceil(CONTACTS / 100);
  const loopMsPerBatch = ((loopAfter.mainThread - loopBefore.mainThread) * 1000) / batches;
  const allMsPerBatch = ((loopAfter.process - loopBefore.process) * 1000) / batches;
  const measured = latencies.slice(20).sort((a, b) => a - b);
  console.log(
    `load: ${CONTACTS} contacts through batch create in ${loadSeconds.toFixed(1)} s (${(CONTACTS / loadSeconds).toFixed(0)}/s); ` +
      `batch of 100 at ${CONNECTIONS} connections: p50 ${quantile(measured, 0.5).toFixed(0)} ms, p99 ${quantile(measured, 0.99).toFixed(0)} ms; ` +
      `CPU per batch: event loop ${loopMsPerBatch.toFixed(1)} ms, all threads ${allMsPerBatch.toFixed(1)} ms; peak RSS ${mib(loadRss)}`,
  );

  // 2. GET by id, and the NestJS one-route reference in the same sitting.
  const get = await measure('service: GET /crm/v3/objects/contacts/{id}', {
    pid: service.pid,
    url: `${service.url}/crm/v3/objects/contacts/${Math.floor(CONTACTS / 2)}`,
    headers: auth,
    profile: true,
  });
  // The shared pipeline alone (token check, routing, log line) in the same process: the limits GET.
  const shared = await measure('service: limits GET (the shared pipeline)', {
    pid: service.pid,
    url: `${service.url}/crm/v3/limits/custom-object-types`,
    headers: auth,
  });
  const nest = await spawnJsonServer(join(ROOT, 'bench', 'servers', 'nest-minimal.mjs'));
  let nestResult;
  try {
    nestResult = await measure('NestJS, one route', {
      pid: nest.child.pid,
      url: `http://127.0.0.1:${nest.info.port}/`,
    });
  } finally {
    await stop(nest.child);
  }
  console.log(
    `get by id: ${(get.reqPerSec / nestResult.reqPerSec).toFixed(2)}x the NestJS one-route GET by req/s; ` +
      `event loop per answer ${get.loopUsPerAnswer.toFixed(1)} µs against ${nestResult.loopUsPerAnswer.toFixed(1)} µs ` +
      `(${(nestResult.loopUsPerAnswer / get.loopUsPerAnswer).toFixed(2)}x); the limits GET ${shared.loopUsPerAnswer.toFixed(1)} µs`,
  );
  await service.stop();

  // 3. The crm-records read model rebuilt from zero, by the CLI, on the same data.
  const t0 = performance.now();
  // The CLI of the build under test (BENCH_SERVICE_MAIN: another build's).
  const dist = dirname(process.env.BENCH_SERVICE_MAIN ?? join(ROOT, 'dist', 'main.js'));
  const cli = spawn(process.execPath, [join(dist, 'cli', 'rebuild-projections.js'), 'crm-records'], {
    cwd: ROOT,
    // As `npm run projections:rebuild` runs it: with the service's heap options (SERVICE_NODE_OPTIONS).
    env: {
      ...process.env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, SERVICE_NODE_OPTIONS].filter(Boolean).join(' '),
      DATA_DIR: dataDir,
      SEED: 'none',
      ADMIN_API_KEY: 'bench-rebuild-admin-key-0123456789',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const cliRss = sampleRss(cli.pid);
  const code = await new Promise((resolve) => cli.once('exit', resolve));
  const rebuildRss = cliRss.stop();
  if (code !== 0) throw new Error(`rebuild exited with ${code}`);
  console.log(
    `rebuild: crm-records from zero in ${((performance.now() - t0) / 1000).toFixed(1)} s (process included); peak RSS ${mib(rebuildRss)}`,
  );
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
