// `npm run bench`: references (bare Fastify, oidc-provider) and the service in one run, each server
// in its own process; prints req/s, p50/p99, peak RSS and ratios, and rewrites docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from './lib/load.mjs';
import { spawnJsonServer, stop } from './lib/processes.mjs';
import { migration } from './lib/migration.mjs';
import { oneMonth } from './lib/one-month.mjs';
import { evaluate, machine, markdown, printSummary } from './lib/report.mjs';
import { Service } from './lib/service.mjs';
import { printSoak, soak, SOAK_METRICS_TOKEN, soakMarkdown, withSoakSection } from './lib/soak.mjs';
import { startup } from './lib/startup.mjs';
import { limitsReplay } from './lib/limits-replay.mjs';
import {
  accessTokenMetadata,
  BENCH_SCOPES,
  codeExchange,
  createCodes,
  introspection,
  limitsGet,
  propertiesBatchRead,
  refreshGrant,
} from './lib/tokens.mjs';

const here = new URL('.', import.meta.url).pathname;
const only = new Set((process.env.BENCH_ONLY ?? '').split(',').filter(Boolean));
const wants = (name) => only.size === 0 || only.has(name);

/** The references' form POST: a body shaped like a refresh grant's. */
const formPost = (url) => ({
  url,
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: 'grant_type=refresh_token&client_id=abc&client_secret=def&refresh_token=na1-0123456789abcdef',
});

/** Runs `fn(pid, base, info)` against a reference server of bench/servers, stopped afterwards. */
async function withReference(file, fn, env) {
  const server = await spawnJsonServer(join(here, 'servers', file), env ? { env } : undefined);
  try {
    return await fn(server.child.pid, `http://127.0.0.1:${server.info.port}`, server.info);
  } finally {
    await stop(server.child);
  }
}

async function references() {
  const out = {};
  for (const [file, label, prefix] of [
    ['bare-fastify.mjs', 'bare Fastify', 'fastify'],
    ['nest-minimal.mjs', 'NestJS, one route', 'nest'],
  ]) {
    if (!reference(prefix)) continue;
    await withReference(file, async (pid, base) => {
      out[`${prefix}Get`] = await measure(`${label}: GET`, { pid, url: `${base}/` });
      out[`${prefix}Post`] = await measure(`${label}: form POST`, { pid, ...formPost(`${base}/form`) });
    });
  }
  if (!reference('oidc')) return out;
  await withReference('oidc-provider.mjs', async (pid, base, info) => {
    const refresh = (refreshToken) => ({
      pid,
      url: `${base}/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: info.clientId,
        client_secret: info.clientSecret,
      }).toString(),
    });
    out.oidcRefresh = await measure('oidc-provider: refresh grant', refresh(info.refreshToken));
    out.oidcRefreshIdToken = await measure('oidc-provider: refresh grant + ID token', refresh(info.refreshTokenOpenId));
  });
  return out;
}

/** The GET answer as sent: bare Fastify, then a one-route Nest app, sending its own headers and body. */
async function sameBytesAsMetadata(url) {
  const answer = await new Promise((resolve, reject) =>
    get(url, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ headers: res.headers, body }));
    }).on('error', reject),
  );
  const headers = { ...answer.headers };
  for (const name of ['content-length', 'date', 'connection', 'keep-alive']) delete headers[name];
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-canned-'));
  const cannedFile = join(dir, 'answer.json');
  writeFileSync(cannedFile, JSON.stringify({ headers, body: answer.body }));
  const out = {};
  try {
    for (const [key, file, label, prefix] of [
      ['fastifySameBytes', 'bare-fastify.mjs', 'bare Fastify: the metadata answer, canned', 'fastify'],
      ['nestSameBytes', 'nest-minimal.mjs', 'NestJS, one route: the metadata answer, canned', 'nest'],
    ]) {
      if (!reference(prefix)) continue;
      out[key] = await withReference(file, (pid, base) => measure(label, { pid, url: `${base}/canned` }), {
        BENCH_CANNED: cannedFile,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/**
 * BENCH_HTTP=refresh,refresh2026,metadata,introspect,canned,limits,bearerPost,codeExchange picks service
 * scenarios (all by default); BENCH_REFS=fastify,nest,oidc picks reference servers.
 */
const pick = (variable) => {
  const names = new Set((process.env[variable] ?? '').split(',').filter(Boolean));
  return (name) => names.size === 0 || names.has(name);
};
const httpScenario = pick('BENCH_HTTP');
const reference = pick('BENCH_REFS');

/**
 * The service's scenarios at one log level: `undefined` is the service's own default (`info`, one
 * line per request: what users run); 'warn' logs nothing per request. Keys of the warn pass end in `Warn`.
 */
async function serviceEndpoints(logLevel) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-http-'));
  const service = new Service({ dataDir, logLevel });
  const suffix = logLevel ? ` (LOG_LEVEL=${logLevel})` : '';
  const key = (name) => (logLevel ? `${name}${logLevel[0].toUpperCase()}${logLevel.slice(1)}` : name);
  const out = {};
  try {
    await service.start();
    await service.ready();
    const setup = await service.createDeveloperSetup({ scopes: BENCH_SCOPES });
    const tokens = await service.exchange(setup, await service.authorizationCode(setup));
    if (httpScenario('refresh'))
      out[key('refresh')] = await refreshGrant(service, setup, tokens.refresh_token, 'v1', suffix);
    if (httpScenario('refresh2026'))
      out[key('refresh2026')] = await refreshGrant(service, setup, tokens.refresh_token, '2026-03', suffix);
    // The access token of the exchange expires in 30 minutes: long enough for every run.
    if (httpScenario('metadata'))
      out[key('metadata')] = await accessTokenMetadata(service, tokens.access_token, suffix);
    if (httpScenario('introspect'))
      out[key('introspect')] = await introspection(service, setup, tokens.access_token, suffix);
    // The canned references send the metadata answer's bytes: once, from the default-level pass.
    if (!logLevel && httpScenario('canned'))
      Object.assign(out, await sameBytesAsMetadata(`${service.url}/oauth/v1/access-tokens/${tokens.access_token}`));
    if (httpScenario('limits')) out[key('limits')] = await limitsGet(service, tokens.access_token, suffix);
    if (httpScenario('bearerPost'))
      out[key('bearerPost')] = await propertiesBatchRead(service, tokens.access_token, suffix);
    if (httpScenario('codeExchange')) {
      const codeCount = Number(process.env.BENCH_CODES ?? 30_000);
      const began = performance.now();
      const codes = await createCodes(service, setup, codeCount + 3000);
      const seconds = (performance.now() - began) / 1000;
      console.log(
        `  (made ${codes.length} authorization codes in ${seconds.toFixed(1)} s through the admin install API)`,
      );
      out[key('codeExchange')] = await codeExchange(service, setup, codes.slice(0, 3000), codes.slice(3000), suffix);
      if (!logLevel) out.codesMadePerSec = codes.length / seconds;
    }
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

async function migrationScenario() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-migration-'));
  const service = new Service({ dataDir });
  try {
    return { migration: await migration(service, Number(process.env.BENCH_ACCOUNTS ?? 100_000)) };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startupScenario() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-startup-'));
  const service = new Service({ dataDir });
  try {
    return { startup: await startup(service, Number(process.env.BENCH_EVENTS ?? 1_000_000)) };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function oneMonthScenario() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-month-'));
  try {
    return { oneMonth: await oneMonth(dataDir) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Minutes of mixed traffic: only when asked for by name (BENCH_ONLY=soak), never in the default run. */
async function soakScenario() {
  const dataDir = mkdtempSync(join(tmpdir(), 'hs-bench-soak-'));
  const service = new Service({
    dataDir,
    // As the container runs it: V8's heap settings of scripts/heap-options.mjs (BENCH_SOAK_NODE_OPTIONS: others).
    env: {
      METRICS_TOKEN: SOAK_METRICS_TOKEN,
      ACCESS_TOKEN_TTL_SECONDS: '86400',
      ...(process.env.BENCH_SOAK_NODE_OPTIONS === undefined
        ? {}
        : { NODE_OPTIONS: process.env.BENCH_SOAK_NODE_OPTIONS }),
    },
  });
  try {
    const fastify = await withReference('bare-fastify.mjs', (pid, base) =>
      measure('bare Fastify: GET (the soak RSS reference)', { pid, url: `${base}/` }),
    );
    const result = await soak(service, {
      seconds: Number(process.env.BENCH_SOAK_SECONDS ?? 900),
      accounts: Number(process.env.BENCH_SOAK_ACCOUNTS ?? 20),
      writesPerSecond: Number(process.env.BENCH_SOAK_WRITES_PER_SEC ?? 5),
      bodyBytes: Number(process.env.BENCH_SOAK_BODY_BYTES ?? 48 * 1024),
    });
    printSoak(result);
    return { result, fastifyRss: fastify.peakRss };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Runs another bench script to its end in this Node, its output inline. */
function runScript(file) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: 'inherit' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))));
  });
}

const results = {};
console.log('references');
if (wants('refs')) Object.assign(results, await references());
console.log('service (dist/main.js, SQLite store), at its default log level');
if (wants('http')) Object.assign(results, await serviceEndpoints());
console.log('service at LOG_LEVEL=warn (no line per request)');
if (wants('http-warn')) Object.assign(results, await serviceEndpoints('warn'));
if (wants('migration')) Object.assign(results, await migrationScenario());
if (wants('startup')) Object.assign(results, await startupScenario());
if (wants('limits-replay')) results.limitsReplay = await limitsReplay();
// A month of refreshes takes long at full scale: only when asked for (BENCH_ONLY=month).
if (only.has('month')) Object.assign(results, await oneMonthScenario());
if (results.oneMonth) console.log(JSON.stringify(results.oneMonth, null, 1));
// The webhook figures of issue 42 (bench/webhooks.mjs, printed only): when asked for (BENCH_ONLY=webhooks).
if (only.has('webhooks')) await runScript(join(here, 'webhooks.mjs'));
const evaluation = evaluate(results);
printSummary(evaluation);
const doc = new URL('../docs/benchmarks.md', import.meta.url);
const previousDoc = existsSync(doc) ? readFileSync(doc, 'utf8') : '';
if (only.size === 0 || process.env.BENCH_WRITE_DOC) {
  // The soak runs only by name: a full run keeps the soak section of the last soak, and the
  // "one month" section (written by hand from its own long run).
  const month = previousDoc.indexOf('\n## One month');
  const kept = month >= 0 ? previousDoc.slice(month) : '';
  writeFileSync(
    doc,
    withSoakSection(
      markdown(results, evaluation, machine()),
      undefined,
      previousDoc.slice(0, month >= 0 ? month : undefined),
    ) + kept,
  );
  console.log(`\nwrote ${doc.pathname}`);
}
if (only.has('soak')) {
  const { result, fastifyRss } = await soakScenario();
  const current = readFileSync(doc, 'utf8');
  const short = result.seconds < 300 && !process.env.BENCH_WRITE_DOC;
  if (short) console.log(`\n(a ${result.seconds} s soak is a check of the scenario: docs/benchmarks.md left alone)`);
  else {
    writeFileSync(doc, withSoakSection(current, soakMarkdown(result, new Date().toISOString(), fastifyRss)));
    console.log(`\nwrote the soak section of ${doc.pathname}`);
  }
  const failed = Object.entries(result.met).filter(([, met]) => !met);
  if (failed.length > 0) console.log(`soak bounds NOT MET: ${failed.map(([k]) => k).join(', ')}`);
}
