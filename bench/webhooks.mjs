// `node scripts/with-build.mjs bench/webhooks.mjs`: the webhook figures of issue 42, apart from
// `npm run bench` (whose report they do not change), as bench/records.mjs is for records.
// 1. 1,000 contacts created (batches of 100 at 4 connections) reach a loopback receiver with
//    maxConcurrentRequests 10: seconds from the first create to the last item, and each item's lag
//    from its create's answer (p50/p99). Target: within 5 s.
// 2. GET by id under 500 record events a second (a batch create of 100 every 200 ms), with the app's
//    webhooks configured (every event delivered) and then cleared (none): the p99s side by side.
//    Target: unchanged. Two loads: autocannon's 32 connections as fast as the service answers (the
//    event loop saturated, so every µs of delivery work queues the GETs), and a fixed rate
//    (BENCH_WEBHOOK_GET_RATE, default 2,000/s, open loop: latency from each request's intended start),
//    the latency a caller sees at a given throughput (lib/fixed-rate.mjs; BENCH_WEBHOOK_RATE_SECONDS measured
//    per window, default 8). With several rounds its p99 is also decided on every window pooled per side.
// 3. The event loop's CPU per record event at 500 events a second with no GET load, webhooks
//    delivering and cleared (the difference is what a delivered item costs the API's thread), and per
//    request the receiver got: less moved by a loaded host than wall-clock p99s.
// BENCH_WEBHOOK_CREATES: how many contacts in 1 (default 1,000). BENCH_WEBHOOK_ROUNDS: how many times 2
// and 3 run, delivering and cleared in turn (default 1; the last line gives each figure's median, less
// moved by a host whose load shifts between windows). BENCH_PROFILE_DIR: a CPU profile of each phase-3
// window (bench/summarize-profile.mjs reads it).
// Every window also gives the service's event-loop delay (prom-client's monitorEventLoopDelay from
// /metrics, reset by each read): p99 and max, less the 10 ms timer it samples with, so 0 is a loop
// never held. The longest synchronous slices make a hot path's p99; this sees them without the GETs'
// own queueing on a loaded host. And each window's run-queue wait (/proc schedstat: ms a second a
// thread was runnable but had no core) of the service's event loop, all its threads, and the bench's,
// with the event loop's preemptions, blocking switches and page faults a second.
// BENCH_WEBHOOK_CONTROL=1: a control run (A/A): the side labelled "delivering" stays cleared too, so
// the verdicts show what no difference at all looks like on this host, with the same windows and rounds.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fixedRate } from './lib/fixed-rate.mjs';
import { measure } from './lib/load.mjs';
import { cpuOf, mainThreadCountersOf, runQueueWaitOf } from './lib/processes.mjs';
import { pairedVerdict as unchanged, pooledVerdict } from './lib/paired.mjs';
import { Service } from './lib/service.mjs';

const CREATES = Number(process.env.BENCH_WEBHOOK_CREATES ?? 1000);
const ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS ?? 1);
const CONNECTIONS = 4;
/** Phase 2's second load: GETs a second at a fixed rate (open loop), well below the saturation of the first. */
const GET_RATE = Number(process.env.BENCH_WEBHOOK_GET_RATE ?? 2000);
/** Seconds each fixed-rate window measures (after 2 s unmeasured): longer, the fewer a window's p99 turns on one stall. */
const RATE_SECONDS = Number(process.env.BENCH_WEBHOOK_RATE_SECONDS ?? 8);
/** A control run: both sides cleared (the "delivering" label kept, so the lines read as in a real run). */
const CONTROL = process.env.BENCH_WEBHOOK_CONTROL === '1';
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** A receiver on 127.0.0.1 that answers 204 and notes when each objectId arrived. */
async function receiver() {
  const arrived = new Map();
  let items = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const now = performance.now();
      requests++;
      for (const item of JSON.parse(body)) {
        items++;
        if (!arrived.has(item.objectId)) arrived.set(item.objectId, now);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    arrived,
    items: () => items,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The service's event-loop delay since the last read (prom-client resets it on every scrape), in ms. */
async function loopDelay(service) {
  const r = await fetch(`${service.url}/metrics`);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}: ${text.slice(0, 200)}`);
  const value = (name) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
    return m ? Number(m[1]) * 1000 - LOOP_SAMPLE_MS : NaN;
  };
  return {
    p50: value('nodejs_eventloop_lag_p50_seconds'),
    p99: value('nodejs_eventloop_lag_p99_seconds'),
    max: value('nodejs_eventloop_lag_max_seconds'),
  };
}
/** prom-client's monitorEventLoopDelay resolution: every sample includes it. */
const LOOP_SAMPLE_MS = 10;
const fmtDelay = (d) => `loop delay p50 ${d.p50.toFixed(1)} / p99 ${d.p99.toFixed(1)} / max ${d.max.toFixed(1)} ms`;

/** Resolves once `check()` holds, polled every 5 ms, at most `ms`. */
async function until(check, ms, what) {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-webhooks-'));
const service = new Service({ dataDir, env: { RATE_LIMIT_ENABLED: 'false' } });
const hooks = await receiver();
try {
  await service.start();
  await service.ready();
  const setup = await service.createDeveloperSetup({
    scopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write'],
  });
  const { access_token: token } = await service.exchange(setup, await service.authorizationCode(setup));
  const auth = { authorization: `Bearer ${token}` };
  const { developerApiKey } = await service.admin('POST', `/admin/v1/accounts/${setup.hubId}/developer-api-keys`);
  const dev = async (method, path, body) => {
    const r = await service.call(method, `/webhooks/v3/${setup.app.appId}${path}?hapikey=${developerApiKey}`, { body });
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
  };
  const settings = { targetUrl: hooks.url, throttling: { maxConcurrentRequests: 10 } };
  await dev('PUT', '/settings', settings);
  await dev('POST', '/subscriptions', { eventType: 'contact.creation', active: true });

  let serial = 0;
  const createBatch = async (n) => {
    const inputs = Array.from({ length: n }, () => ({ properties: { email: `c${serial++}@bench.example.com` } }));
    const r = await service.call('POST', '/crm/v3/objects/contacts/batch/create', { body: { inputs }, headers: auth });
    if (r.status !== 201) throw new Error(`batch create answered ${r.status}: ${r.text.slice(0, 300)}`);
    const answeredAt = performance.now();
    return r.json.results.map((c) => [Number(c.id), answeredAt]);
  };

  // 1. CREATES contacts to the receiver.
  const answered = new Map();
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < CREATES) {
        const n = Math.min(100, CREATES - next);
        next += n;
        for (const [id, at] of await createBatch(n)) answered.set(id, at);
      }
    }),
  );
  await until(() => [...answered.keys()].every((id) => hooks.arrived.has(id)), 60_000, 'every creation delivered');
  const last = Math.max(...[...answered.keys()].map((id) => hooks.arrived.get(id)));
  const lags = [...answered].map(([id, at]) => hooks.arrived.get(id) - at).sort((a, b) => a - b);
  console.log(
    `deliveries: ${CREATES} creations at the receiver ${((last - began) / 1000).toFixed(2)} s after the first create ` +
      `(target 5 s); lag from the create's answer p50 ${quantile(lags, 0.5).toFixed(0)} ms, p99 ${quantile(lags, 0.99).toFixed(0)} ms; ` +
      `${hooks.items()} items received`,
  );

  // 2. GET by id under 500 record events a second, webhooks on and off.
  let generatorPriorityShown = false;
  const getUrl = `${service.url}/crm/v3/objects/contacts/${[...answered.keys()][0]}`;
  // Delivering, it ends once the receiver holds every item, so the next window (cleared) starts idle.
  const underEvents = async (label, delivering, load = 'saturating') => {
    let created = 0;
    const itemsBefore = hooks.items();
    const pending = new Set();
    const timer = setInterval(() => {
      const p = createBatch(100).then(
        (ids) => (created += ids.length),
        (error) => console.error(error.message),
      );
      pending.add(p);
      p.finally(() => pending.delete(p));
    }, 200);
    const started = performance.now();
    await loopDelay(service);
    const waitBefore = waitsNow();
    try {
      const result =
        load === 'saturating'
          ? await measure(label, { pid: service.pid, url: getUrl, headers: auth, quiet: true, profile: true })
          : await fixedRate({ url: getUrl, headers: auth, rate: GET_RATE, durationS: RATE_SECONDS });
      if (result.priority && !generatorPriorityShown) {
        generatorPriorityShown = true;
        console.log(`fixed-rate generator thread at ${result.priority}`);
      }
      const waited = waitedSince(waitBefore, (performance.now() - started) / 1000);
      return { ...result, created, waited, delay: await loopDelay(service) };
    } finally {
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      console.log(`${label}: ~${(created / seconds).toFixed(0)} record events/s generated`);
      await Promise.all([...pending]);
      if (delivering)
        await until(() => hooks.items() - itemsBefore >= created, 60_000, `${label}: every item delivered`);
    }
  };
  /** Per second of a window: run-queue waits (the service's event loop, all its threads, the bench's) and the loop's counters. */
  const waitsNow = () => ({
    service: runQueueWaitOf(service.pid),
    bench: runQueueWaitOf(process.pid),
    loop: mainThreadCountersOf(service.pid),
  });
  const waitedSince = (before, seconds) => {
    const now = waitsNow();
    return {
      loop: (now.service.mainThread - before.service.mainThread) / seconds,
      service: (now.service.process - before.service.process) / seconds,
      bench: (now.bench.process - before.bench.process) / seconds,
      blocked: (now.loop.voluntary - before.loop.voluntary) / seconds,
      preempted: (now.loop.involuntary - before.loop.involuntary) / seconds,
      faults: (now.loop.minorFaults - before.loop.minorFaults) / seconds,
    };
  };
  const fmtWait = (w) =>
    `event loop ${w.loop.toFixed(1)}, service ${w.service.toFixed(1)}, bench ${w.bench.toFixed(1)} ms/s ` +
    `(event loop: ${w.preempted.toFixed(0)} preempted, ${w.blocked.toFixed(0)} blocked, ${w.faults.toFixed(0)} page faults /s)`;
  // 3. The event loop's CPU per record event (no GET load): generated for `seconds`, then (webhooks
  //    delivering) until the receiver holds every item, plus a short settle for the projections.
  const loopPerEvent = async (label, delivering, seconds = 8) => {
    const profiling = Boolean(process.env.BENCH_PROFILE_DIR);
    const itemsBefore = hooks.items();
    const requestsBefore = hooks.requests();
    if (profiling) process.kill(service.pid, 'SIGWINCH');
    const cpu = cpuOf(service.pid);
    await loopDelay(service);
    const waitBefore = waitsNow();
    const began = performance.now();
    let created = 0;
    const pending = new Set();
    const timer = setInterval(() => {
      const p = createBatch(100).then(
        (ids) => (created += ids.length),
        (error) => console.error(error.message),
      );
      pending.add(p);
      p.finally(() => pending.delete(p));
    }, 200);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    clearInterval(timer);
    await Promise.all([...pending]);
    if (delivering) await until(() => hooks.items() - itemsBefore >= created, 60_000, `${label}: every item delivered`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waited = waitedSince(waitBefore, (performance.now() - began) / 1000);
    const delay = await loopDelay(service);
    const used = cpuOf(service.pid);
    if (profiling) process.kill(service.pid, 'SIGWINCH');
    const loopUs = (used.mainThread - cpu.mainThread) * 1e6;
    const requests = hooks.requests() - requestsBefore;
    console.log(
      `${label}: ${created} record events, event-loop CPU ${(loopUs / 1e6).toFixed(2)} s = ${(loopUs / created).toFixed(0)} µs per record event ` +
        `(process ${(((used.process - cpu.process) * 1e6) / created).toFixed(0)} µs); ${requests} requests, ${hooks.items() - itemsBefore} items received; ${fmtDelay(delay)}; ` +
        `waiting for a core: ${fmtWait(waited)}`,
    );
    return { loopUsPerEvent: loopUs / created, requests, delay, waited };
  };

  const rounds = [];
  let configured = true;
  if (CONTROL) console.log('control run (A/A): the side labelled "delivering" is cleared too');
  const setDelivering = async (wanted) => {
    const on = wanted && !CONTROL;
    if (on !== configured) await (on ? dev('PUT', '/settings', settings) : dev('DELETE', '/settings'));
    configured = on;
  };
  for (let round = 0; round < ROUNDS; round++) {
    // A fresh access token each round: one lives 30 minutes, and a long run outlasts it (every GET a 401).
    if (round > 0) {
      const { access_token: fresh } = await service.exchange(setup, await service.authorizationCode(setup));
      auth.authorization = `Bearer ${fresh}`;
    }
    // Delivering first in even rounds, cleared first in odd ones: a drift of the host or of the
    // service (a growing store, a warmer heap) does not always favour the same side.
    const order = round % 2 === 0 ? [true, false] : [false, true];
    const windows = {};
    for (const delivering of order) {
      await setDelivering(delivering);
      const side = delivering ? 'webhooks delivering' : 'webhooks cleared';
      const sends = delivering && !CONTROL;
      windows[delivering] = {
        cpu: await loopPerEvent(`loop CPU, ${side}`, sends),
        sat: await underEvents(`GET by id, ${side}`, sends),
        rate: await underEvents(`GET by id at ${GET_RATE}/s, ${side}`, sends, 'fixed'),
      };
    }
    const { cpu: cpuOn, sat: on, rate: rateOn } = windows.true;
    const { cpu: cpuOff, sat: off, rate: rateOff } = windows.false;
    console.log(
      `round ${round + 1} (${order[0] ? 'delivering' : 'cleared'} first): event-loop CPU per record event: ${cpuOn.loopUsPerEvent.toFixed(0)} µs delivering, ${cpuOff.loopUsPerEvent.toFixed(0)} µs cleared ` +
        `(delivery's share ${(cpuOn.loopUsPerEvent - cpuOff.loopUsPerEvent).toFixed(0)} µs per item; ` +
        `${cpuOn.requests} requests); ${fmtDelay(cpuOn.delay)} delivering, ${fmtDelay(cpuOff.delay)} cleared`,
    );
    console.log(
      `hot path under ~500 record events/s: GET by id p99 ${on.p99} ms with webhooks delivering, ${off.p99} ms without ` +
        `(p50 ${on.p50} / ${off.p50} ms; ${on.reqPerSec.toFixed(0)} / ${off.reqPerSec.toFixed(0)} req/s; ` +
        `server's event loop ${(on.serverMainCpu * 100).toFixed(0)} / ${(off.serverMainCpu * 100).toFixed(0)} % of a core); ` +
        `${fmtDelay(on.delay)} delivering, ${fmtDelay(off.delay)} cleared`,
    );
    const fmtRate = (r) =>
      `p50 ${r.p50.toFixed(1)} / p99 ${r.p99.toFixed(1)} / p99.9 ${r.p999.toFixed(1)} / max ${r.max.toFixed(1)} ms` +
      ` (${r.reqPerSec.toFixed(0)} answered/s${r.errors || r.dropped ? `, ${r.errors} errors, ${r.dropped} not sent` : ''};` +
      ` sent late p99 ${r.lateP99.toFixed(1)} / max ${r.lateMax.toFixed(1)} ms)`;
    console.log(
      `hot path at ${GET_RATE} GETs/s (fixed rate, latency from each request's intended start) under ~500 record events/s: ` +
        `${fmtRate(rateOn)} with webhooks delivering, ${fmtRate(rateOff)} without; ` +
        `${fmtDelay(rateOn.delay)} delivering, ${fmtDelay(rateOff.delay)} cleared`,
    );
    console.log(
      `waiting for a core (run queue): saturating ${fmtWait(on.waited)} delivering, ${fmtWait(off.waited)} cleared; ` +
        `at ${GET_RATE}/s ${fmtWait(rateOn.waited)} delivering, ${fmtWait(rateOff.waited)} cleared`,
    );
    rounds.push({ cpuOn, cpuOff, on, off, rateOn, rateOff });
  }
  await setDelivering(true);
  if (process.env.BENCH_WEBHOOK_OUT)
    writeFileSync(
      process.env.BENCH_WEBHOOK_OUT,
      // A latency histogram as its non-empty bins, [bin, count] (0.1 ms bins).
      JSON.stringify(
        rounds,
        (key, value) =>
          key === 'histogram' ? [...value].flatMap((count, bin) => (count > 0 ? [[bin, count]] : [])) : value,
        1,
      ),
    );
  if (ROUNDS > 1) {
    const median = (f) =>
      quantile(
        rounds.map(f).sort((a, b) => a - b),
        0.5,
      );
    console.log(
      `medians of ${ROUNDS} rounds: event-loop CPU per record event ${median((r) => r.cpuOn.loopUsPerEvent).toFixed(0)} / ` +
        `${median((r) => r.cpuOff.loopUsPerEvent).toFixed(0)} µs (a delivered item ` +
        `${median((r) => r.cpuOn.loopUsPerEvent - r.cpuOff.loopUsPerEvent).toFixed(0)} µs); GET by id p99 ` +
        `${median((r) => r.on.p99)} / ${median((r) => r.off.p99)} ms, ` +
        `${median((r) => r.on.reqPerSec).toFixed(0)} / ${median((r) => r.off.reqPerSec).toFixed(0)} req/s; ` +
        `loop delay p99 under GETs ${median((r) => r.on.delay.p99).toFixed(1)} / ${median((r) => r.off.delay.p99).toFixed(1)} ms, ` +
        `max ${median((r) => r.on.delay.max).toFixed(1)} / ${median((r) => r.off.delay.max).toFixed(1)} ms; ` +
        `without GETs p99 ${median((r) => r.cpuOn.delay.p99).toFixed(1)} / ${median((r) => r.cpuOff.delay.p99).toFixed(1)} ms, ` +
        `max ${median((r) => r.cpuOn.delay.max).toFixed(1)} / ${median((r) => r.cpuOff.delay.max).toFixed(1)} ms (delivering / cleared)`,
    );
    console.log(
      `medians of ${ROUNDS} rounds at ${GET_RATE} GETs/s: p99 ${median((r) => r.rateOn.p99).toFixed(1)} / ` +
        `${median((r) => r.rateOff.p99).toFixed(1)} ms, p99.9 ${median((r) => r.rateOn.p999).toFixed(1)} / ` +
        `${median((r) => r.rateOff.p999).toFixed(1)} ms, p50 ${median((r) => r.rateOn.p50).toFixed(1)} / ` +
        `${median((r) => r.rateOff.p50).toFixed(1)} ms (delivering / cleared)`,
    );
    // "Unchanged", decided on the pairs: the 95 % interval of the median paired difference
    // (delivering − cleared, distribution-free) within ±10 % of the cleared side's median.
    for (const [name, on, off] of [
      ['GET by id p99, saturating', (r) => r.on.p99, (r) => r.off.p99],
      [`GET by id p99 at ${GET_RATE}/s`, (r) => r.rateOn.p99, (r) => r.rateOff.p99],
      ['loop delay p99 under the saturating GETs', (r) => r.on.delay.p99, (r) => r.off.delay.p99],
    ]) {
      const verdict = unchanged(
        rounds.map((r) => on(r) - off(r)),
        median(off),
      );
      console.log(`${name}: ${verdict.text}`);
    }
    // The fixed-rate p99 of each side's windows pooled: a window's own p99 (16,000 requests) is set by
    // its few longest stalls, which move it by more than the margin from one window to the next.
    const pooled = pooledVerdict(
      rounds.map((r) => r.rateOn.histogram),
      rounds.map((r) => r.rateOff.histogram),
    );
    console.log(`GET by id p99 at ${GET_RATE}/s, every window pooled: ${pooled.text}`);
  }
} finally {
  await service.stop();
  await hooks.close();
  rmSync(dataDir, { recursive: true, force: true });
}
