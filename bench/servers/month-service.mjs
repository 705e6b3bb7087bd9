// The service of the "one month" scenario: the built app (dist/) with a clock the benchmark moves
// (a clock it moves by hand), so a month of refreshes runs in minutes. Serves the API on PORT and a control
// server on a free port: POST /advance?ms=N moves the clock; POST /archive runs archive batches
// until caught up (as the background timer would); GET /stats checkpoints the WAL and reports the
// store's size. Prints {"port", "controlPort"} once listening.
import 'reflect-metadata';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const dist = new URL('../../dist/', import.meta.url).pathname;
const Database = require('better-sqlite3');
const { createApp } = require(join(dist, 'app.factory.js'));
const { loadConfig } = require(join(dist, 'platform/config/config.js'));
const { featureModules } = require(join(dist, 'feature-modules.js'));
const { HistoryArchiveService } = require(join(dist, 'ops/index.js'));
const { createLogger } = require(join(dist, 'platform/logging/logger.js'));

/** The service's wall clock, moved by POST /advance (the tests' ManualClock lives in test/support). */
let simulatedNow = Number(process.env.SIM_NOW);
const clock = {
  now: () => simulatedNow,
  advance: (ms) => {
    simulatedNow += ms;
  },
};
const config = loadConfig({ ...process.env, ARCHIVE_INTERVAL_MS: '0' });
const app = await createApp({ config, clock, modules: featureModules(), logger: createLogger('warn') });
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
const archive = app.get(HistoryArchiveService);
const dataDir = config.dataDir;

const sizeOf = (file) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

function stats() {
  const file = join(dataDir, 'events.sqlite');
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = db.pragma('page_size', { simple: true });
    const pages = db.pragma('page_count', { simple: true });
    const free = db.pragma('freelist_count', { simple: true });
    const liveEvents = db.prepare('SELECT COUNT(*) AS n FROM event_log').get().n;
    const archiveDir = join(dataDir, 'archive');
    let archiveBytes = 0;
    try {
      for (const f of readdirSync(archiveDir)) archiveBytes += sizeOf(join(archiveDir, f));
    } catch {
      // no archive yet
    }
    return {
      fileBytes: sizeOf(file) + sizeOf(`${file}-wal`),
      usedBytes: (pages - free) * pageSize,
      liveEvents,
      archiveBytes,
      now: clock.now(),
    };
  } finally {
    db.close();
  }
}

const control = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  try {
    let body;
    if (req.method === 'POST' && url.pathname === '/advance') {
      clock.advance(Number(url.searchParams.get('ms')));
      body = { now: clock.now() };
    } else if (req.method === 'POST' && url.pathname === '/archive') {
      const began = performance.now();
      const archived = await archive.runUntilCaughtUp();
      body = { archived, ms: performance.now() - began };
    } else if (url.pathname === '/stats') body = stats();
    else {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  } catch (error) {
    res.writeHead(500).end(String(error && error.stack ? error.stack : error));
  }
});
control.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: Number(process.env.PORT), controlPort: control.address().port })}\n`);
});

process.on('SIGTERM', async () => {
  control.close();
  await app.close();
  process.exit(0);
});
