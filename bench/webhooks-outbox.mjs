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
import { ROOT } from './lib/service.mjs';

const require = createRequire(import.meta.url);
const dist = process.env.BENCH_OUTBOX_DIST ?? join(ROOT, 'dist');
const EVENTS = Number(process.env.BENCH_OUTBOX_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_OUTBOX_ROUNDS ?? 5);
const { WebhookOutboxProjection } = require(join(dist, 'app-webhooks/projections/webhook-outbox.projection.js'));
const { WebhooksQueries } = require(join(dist, 'app-webhooks/application/webhooks.queries.js'));
const { openReadModelDatabase, closeReadModelDatabase } = require(
  join(dist, 'platform/projections/read-model-database.js'),
);

const APP = 7;
const HUB = 40;
const T0 = Date.UTC(2026, 10, 1);
const dir = mkdtempSync(join(tmpdir(), 'hs-bench-outbox-'));
const db = openReadModelDatabase(join(dir, 'readmodels.sqlite'));
const projection = new WebhookOutboxProjection();
const queries = new WebhooksQueries(db);
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

/** Thread CPU µs per record event over `EVENTS` events, in batches of 100. */
function window(delivering) {
  settings(delivering);
  const started = process.cpuUsage();
  for (let done = 0; done < EVENTS; done += 100) {
    applyAll(creations(100));
    if (!delivering) continue;
    const waiting = queries.waitingItems(APP, 1000);
    const items = queries.withPayloads(waiting.slice(0, 100));
    applyAll([
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
    ]);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / EVENTS;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  window(true); // warm-up (JIT, statement caches, the file's first pages)
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
} finally {
  closeReadModelDatabase(db);
  rmSync(dir, { recursive: true, force: true });
}
