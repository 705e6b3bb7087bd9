// `node bench/rss-probe.mjs`: what the service's RSS is made of after the refresh-grant and metadata
// load scenarios, under BENCH_SERVICE_NODE_OPTIONS (the V8 heap settings to weigh). Prints peak RSS
// per scenario, then /proc's anonymous and file-backed RSS and V8's heap figures (from /metrics).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Service } from './lib/service.mjs';
import { accessTokenMetadata, BENCH_SCOPES, limitsGet, refreshGrant } from './lib/tokens.mjs';

const TOKEN = 'rss-probe-metrics-token-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-rss-'));
const service = new Service({ dataDir, env: { METRICS_TOKEN: TOKEN } });
const mib = (b) => `${(b / 1048576).toFixed(0)} MiB`;
try {
  await service.start();
  await service.ready();
  const setup = await service.createDeveloperSetup({ scopes: BENCH_SCOPES });
  const tokens = await service.exchange(setup, await service.authorizationCode(setup));
  const runs = [
    await refreshGrant(service, setup, tokens.refresh_token),
    await accessTokenMetadata(service, tokens.access_token),
    await limitsGet(service, tokens.access_token),
  ];
  const status = readFileSync(`/proc/${service.pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  const metrics = await (
    await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).text();
  const metric = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN);
  const spaces = [...metrics.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)/gm)]
    .map(([, s, v]) => `${s} ${mib(Number(v))}`)
    .join(', ');
  console.log(
    JSON.stringify(
      {
        nodeOptions: process.env.BENCH_SERVICE_NODE_OPTIONS ?? '(scripts/heap-options.mjs)',
        peakRss: runs.map(
          (r) =>
            `${r.name.replace('service: ', '')}: ${mib(r.peakRss)}, p99 ${r.p99} ms, ${r.loopUsPerAnswer.toFixed(0)} µs`,
        ),
        rssNow: mib(kb('VmRSS')),
        anon: mib(kb('RssAnon')),
        file: mib(kb('RssFile')),
        heapTotal: mib(metric('nodejs_heap_size_total_bytes')),
        heapUsed: mib(metric('nodejs_heap_size_used_bytes')),
        external: mib(metric('nodejs_external_memory_bytes')),
        spaces,
      },
      null,
      1,
    ),
  );
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
