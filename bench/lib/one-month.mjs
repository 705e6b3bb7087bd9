// "One month": installs refreshing every 30 minutes for 30 simulated days with
// AUDIT_RETENTION_DAYS=7, on the built service with its clock moved by the benchmark
// (bench/servers/month-service.mjs). Scale with BENCH_MONTH_INSTALLS (default 10,000: about 14
// million refresh grants) and BENCH_MONTH_DAYS (default 30).
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { freePort, sampleRss, spawnJsonServer, stop, waitForStatus } from './processes.mjs';

const here = new URL('..', import.meta.url).pathname;
const MINUTE = 60_000;
const REDIRECT_URI = 'https://example.com/oauth-callback';
const START = Date.UTC(2026, 0, 1);

const quantile = (sorted, q) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

class MonthService {
  constructor(dataDir, adminKey) {
    this.dataDir = dataDir;
    this.adminKey = adminKey;
  }

  async start(now) {
    const port = await freePort();
    const began = performance.now();
    const { child, info } = await spawnJsonServer(join(here, 'servers', 'month-service.mjs'), {
      env: {
        DATA_DIR: this.dataDir,
        PORT: String(port),
        SIM_NOW: String(now),
        SEED: 'none',
        ADMIN_API_KEY: this.adminKey,
        RATE_LIMIT_ENABLED: 'false',
        LOG_LEVEL: 'warn',
        AUDIT_RETENTION_DAYS: process.env.BENCH_MONTH_RETENTION_DAYS ?? '7',
        AUTH_CODE_TTL_SECONDS: '600',
      },
      timeoutMs: 600_000,
    });
    this.child = child;
    this.url = `http://127.0.0.1:${info.port}`;
    this.control = `http://127.0.0.1:${info.controlPort}`;
    await waitForStatus(`${this.url}/health/ready`, 200, { everyMs: 20, timeoutMs: 600_000 });
    this.rss = sampleRss(child.pid, 200);
    return (performance.now() - began) / 1000;
  }

  async stop() {
    const peak = this.rss.stop();
    await stop(this.child, 120_000);
    return peak;
  }

  async call(method, url, { json, form, headers = {} } = {}) {
    const body = json ? JSON.stringify(json) : form ? new URLSearchParams(form).toString() : undefined;
    const r = await fetch(url, {
      method,
      headers: {
        ...headers,
        ...(json
          ? { 'content-type': 'application/json' }
          : form
            ? { 'content-type': 'application/x-www-form-urlencoded' }
            : {}),
      },
      body,
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : undefined, text };
  }

  async admin(method, path, json) {
    const r = await this.call(method, `${this.url}${path}`, {
      json,
      headers: { authorization: `Bearer ${this.adminKey}` },
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.json;
  }

  async controlCall(method, path) {
    const r = await this.call(method, `${this.control}${path}`);
    if (r.status !== 200) throw new Error(`control ${path}: ${r.status} ${r.text}`);
    return r.json;
  }
}

async function inPool(items, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/** Accounts, users (1,000 accounts each), one app installed in every account: a refresh token per install. */
async function installs(s, count) {
  const dev = await s.admin('POST', '/admin/v1/accounts', { domain: 'month-dev.example.com', tier: 'enterprise' });
  const app = await s.admin('POST', '/admin/v1/apps', {
    developerHubId: dev.hubId,
    name: 'Month app',
    redirectUrls: [REDIRECT_URI],
    requiredScopes: ['oauth', 'crm.objects.contacts.read'],
    optionalScopes: [],
  });
  const hubIds = new Array(count);
  await inPool([...Array(count).keys()], 32, async (i) => {
    hubIds[i] = (await s.admin('POST', '/admin/v1/accounts', { domain: `m-${i}.example.com`, tier: 'starter' })).hubId;
  });
  const userOf = new Map();
  for (let i = 0; i < count; i += 1000) {
    const chunk = hubIds.slice(i, i + 1000);
    const user = await s.admin('POST', '/admin/v1/users', {
      email: `month-${i}@example.com`,
      password: randomBytes(12).toString('hex'),
      hubIds: chunk,
    });
    for (const h of chunk) userOf.set(h, user.userId);
  }
  const tokens = new Array(count);
  await inPool(hubIds, 32, async (hubId, i) => {
    const { code } = await s.admin('POST', `/admin/v1/apps/${app.appId}/installs`, {
      hubId,
      userId: userOf.get(hubId),
      redirectUri: REDIRECT_URI,
    });
    const r = await s.call('POST', `${s.url}/oauth/v1/token`, {
      form: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: REDIRECT_URI,
        code,
      },
    });
    if (r.status !== 200) throw new Error(`exchange: ${r.status} ${r.text}`);
    tokens[i] = r.json.refresh_token;
  });
  return { app, tokens };
}

export async function oneMonth(dataDir) {
  const count = Number(process.env.BENCH_MONTH_INSTALLS ?? 10_000);
  const days = Number(process.env.BENCH_MONTH_DAYS ?? 30);
  const perDay = (24 * 60) / 30;
  const restartDays = new Set([7, 14, days].filter((d) => d <= days));
  const s = new MonthService(dataDir, randomBytes(24).toString('hex'));
  let now = START;
  const startups = [{ day: 0, seconds: await s.start(now) }];
  let peakRss = 0;
  const setupBegan = performance.now();
  const { app, tokens } = await installs(s, count);
  console.log(`  (${count} installs set up in ${((performance.now() - setupBegan) / 1000).toFixed(1)} s)`);
  const form = (rt) => ({
    grant_type: 'refresh_token',
    client_id: app.clientId,
    client_secret: app.clientSecret,
    refresh_token: rt,
  });
  const quiet = [];
  const duringArchive = [];
  const daysOut = [];
  let refreshes = 0;
  let failed = 0;
  const began = performance.now();
  const base = await s.controlCall('GET', '/stats');
  for (let day = 1; day <= days; day++) {
    let archiving = null;
    let archiveResult = null;
    for (let tick = 0; tick < perDay; tick++) {
      now += 30 * MINUTE;
      await s.controlCall('POST', `/advance?ms=${30 * MINUTE}`);
      // Archiving starts with the day's first tick and runs alongside the refreshes.
      if (tick === 0) {
        archiving = s.controlCall('POST', '/archive').then((r) => {
          archiveResult = r;
          archiving = null;
        });
      }
      await inPool(tokens, 32, async (rt) => {
        const t0 = performance.now();
        const r = await s.call('POST', `${s.url}/oauth/v1/token`, { form: form(rt) });
        const ms = performance.now() - t0;
        if (r.status !== 200) failed += 1;
        refreshes += 1;
        (archiving ? duringArchive : quiet).push(ms);
      });
    }
    if (archiving) await archiving;
    const st = await s.controlCall('GET', '/stats');
    const row = { day, refreshes, ...st, archived: archiveResult?.archived ?? 0, archiveMs: archiveResult?.ms ?? 0 };
    daysOut.push(row);
    console.log(
      `  day ${String(day).padStart(2)}: ${refreshes} refreshes, live ${(st.fileBytes / 1048576).toFixed(1)} MiB file / ${(st.usedBytes / 1048576).toFixed(1)} MiB used, ${st.liveEvents} live events, archive ${(st.archiveBytes / 1048576).toFixed(2)} MiB (+${row.archived} in ${(row.archiveMs / 1000).toFixed(1)} s)`,
    );
    if (restartDays.has(day)) {
      peakRss = Math.max(peakRss, await s.stop());
      startups.push({ day, seconds: await s.start(now) });
      console.log(`  restart after day ${day}: ready in ${startups.at(-1).seconds.toFixed(2)} s`);
    }
  }
  peakRss = Math.max(peakRss, await s.stop());
  quiet.sort((a, b) => a - b);
  duringArchive.sort((a, b) => a - b);
  // Bytes per refresh before anything is archived (the first retention window): growth of the
  // pages in use over the refreshes of days 1 to min(6, days).
  const beforeArchive = daysOut.filter((d) => d.day <= Math.min(6, days));
  const last = beforeArchive.at(-1);
  const bytesPerRefresh = last ? (last.usedBytes - base.usedBytes) / last.refreshes : null;
  return {
    installs: count,
    days,
    refreshes,
    failed,
    wallSeconds: (performance.now() - began) / 1000,
    bytesPerRefresh,
    perDay: daysOut,
    startups,
    peakRss,
    p99Quiet: quantile(quiet, 0.99),
    p50Quiet: quantile(quiet, 0.5),
    p99Archiving: quantile(duringArchive, 0.99),
    p50Archiving: quantile(duringArchive, 0.5),
    samplesArchiving: duringArchive.length,
  };
}
