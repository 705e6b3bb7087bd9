// `node scripts/with-build.mjs bench/webhooks-outbox.mjs`: what a delivered item costs the thread that
// applies the webhooks-outbox projection and runs the dispatcher's reads, in-process and without HTTP,
// so a loaded host moves it far less than bench/webhooks.mjs's event-loop figures. Record creations are
// applied as the projection runner applies them (100 to a transaction, on a read-model file with its
// pragmas), with the app's settings cleared (nothing matches) and then configured (each creation one
// item); delivering, each batch is then picked as the dispatcher picks it (waiting items, their
// payloads) and its attempt applied. The difference per record event is the delivered item's cost.
// Alternating windows, medians. BENCH_OUTBOX_DIST: another build's dist/ (an A/B in one sitting);
// BENCH_OUTBOX_EVENTS: record events per window (default 20,000); BENCH_OUTBOX_ROUNDS (default 5).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from './lib/service.mjs';

const require = createRequire(import.meta.url);
const dist = process.env.BENCH_OUTBOX_DIST ?? join(ROOT, 'dist');
const EVENTS = Number(process.env.BENCH_OUTBOX_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_OUTBOX_ROUNDS ?? 5);
const { WebhookOutboxProjection } = require(join(dist, 'app-webhooks/projections/webhook-outbox.projection.js'));
const { OutboxQueries } = require(join(dist, 'app-webhooks/application/outbox-queries.js'));
const { openReadModelDatabase, closeReadModelDatabase } = require(
  join(dist, 'platform/projections/read-model-database.js'),
);

const APP = 7;
const HUB = 40;
const T0 = Date.UTC(2026, 10, 1);
const dir = mkdtempSync(join(tmpdir(), 'hs-bench-outbox-'));
const db = openReadModelDatabase(join(dir, 'readmodels.sqlite'));
const projection = new WebhookOutboxProjection();
const queries = new OutboxQueries(db);
projection.setup(db);
let position = 0;
let contact = 0;
const event = (type, data) => ({
  type,
  data,
  position: ++position,
  metadata: { eventId: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`, occurredAt: T0 },
});
const applyAll = db.transaction((events) => {
  for (const e of events) projection.apply(e, db);
});
const settings = (on) =>
  applyAll([
    on
      ? event('webhooks.SettingsConfigured', {
          appId: APP,
          targetUrl: 'http://127.0.0.1/hooks',
          maxConcurrentRequests: 10,
          configuredAt: T0,
        })
      : event('webhooks.SettingsCleared', { appId: APP, clearedAt: T0 }),
  ]);
applyAll([
  event('oauth.AppInstalled', {
    appId: APP,
    hubId: HUB,
    installId: 'i',
    installingUserId: 1,
    scopes: ['oauth', 'crm.objects.contacts.read'],
    installedAt: T0,
  }),
  event('webhooks.SubscriptionCreated', {
    appId: APP,
    subscriptionId: 1,
    eventType: 'contact.creation',
    propertyName: null,
    objectTypeId: null,
    active: true,
    createdAt: T0,
  }),
]);

const creations = (n) =>
  Array.from({ length: n }, () =>
    event('crm.RecordCreated', {
      hubId: HUB,
      objectTypeId: '0-1',
      id: ++contact,
      properties: { email: `c${contact}@bench.example.com`, firstname: 'Ada', lastname: 'Lovelace' },
      createdAt: T0,
      appId: 99,
      userId: null,
    }),
  );

/** Wall ms of each step of a window (one per batch of 100): what one synchronous slice holds the loop for. */
const slices = { creations: { on: [], off: [] }, pick: [], attempt: [] };
const timed = (into, f) => {
  const t = performance.now();
  const r = f();
  into.push(performance.now() - t);
  return r;
};

/** Thread CPU µs per record event over `EVENTS` events, in batches of 100. */
function window(delivering) {
  settings(delivering);
  const started = process.cpuUsage();
  for (let done = 0; done < EVENTS; done += 100) {
    const batch = creations(100);
    timed(slices.creations[delivering ? 'on' : 'off'], () => applyAll(batch));
    if (!delivering) continue;
    const items = timed(slices.pick, () => queries.withPayloads(queries.waitingItems(APP, 1000).slice(0, 100)));
    const attempt = [
      event('webhooks.DeliveryAttempted', {
        appId: APP,
        requestId: `r-${position}`,
        url: 'http://127.0.0.1/hooks',
        sentAt: T0,
        requestHeaders: { 'X-HubSpot-Request-Timestamp': String(T0) },
        statusCode: 204,
        error: null,
        responseBody: '',
        durationMs: 3,
        items: items.map((i) => ({
          eventId: i.eventId,
          attemptNumber: i.attemptNumber,
          attemptedAt: T0,
          outcome: 'delivered',
          nextAttemptAt: null,
        })),
      }),
    ];
    timed(slices.attempt, () => applyAll(attempt));
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / EVENTS;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  window(true); // warm-up (JIT, statement caches, the file's first pages)
  for (const list of [slices.creations.on, slices.creations.off, slices.pick, slices.attempt]) list.length = 0;
  const on = [];
  const off = [];
  for (let r = 0; r < ROUNDS; r++) {
    off.push(window(false));
    on.push(window(true));
  }
  const share = on.map((x, i) => x - off[i]);
  console.log(
    `webhooks-outbox (${dist}): µs of CPU per record event, ${ROUNDS} rounds of ${EVENTS}: ` +
      `cleared ${off.map((x) => x.toFixed(1)).join(', ')}; delivering ${on.map((x) => x.toFixed(1)).join(', ')}; ` +
      `a delivered item ${share.map((x) => x.toFixed(1)).join(', ')} (median ${median(share).toFixed(1)})`,
  );
  const ms = (xs) =>
    `${median(xs).toFixed(2)} ms (p99 ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)].toFixed(2)})`;
  console.log(
    `a batch of 100 as one slice, median: creations applied ${ms(slices.creations.off)} cleared, ` +
      `${ms(slices.creations.on)} delivering; the dispatcher's pick ${ms(slices.pick)}; the attempt applied ${ms(slices.attempt)}`,
  );
} finally {
  closeReadModelDatabase(db);
  rmSync(dir, { recursive: true, force: true });
}
