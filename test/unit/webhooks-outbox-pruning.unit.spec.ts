import Database from 'better-sqlite3';
import { OutboxQueries } from '../../src/app-webhooks/application/outbox-queries';
import {
  type DeliveryAttempted,
  WebhooksEventType,
  type WebhooksEvent,
} from '../../src/app-webhooks/domain/webhook-events';
import { WebhookOutboxProjection } from '../../src/app-webhooks/projections/webhook-outbox.projection';
import type { Recorded } from '../../src/platform/events/event-type-registry';

/**
 * The outbox projection's pruning (webhooks.DeliveriesPruned) on attempts that name their items:
 * a request goes only with all its items, so an item that shared a request with one still kept stays
 * with every attempt it was in, and the log rebuilds each body from the items in the body's order.
 */
const T0 = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
let db: Database.Database;
let position = 0;
const projection = new WebhookOutboxProjection();

function apply(event: WebhooksEvent): void {
  projection.apply({ ...event, position: ++position } as unknown as Recorded<WebhooksEvent>, db);
}

function item(appId: number, eventId: string): void {
  db.prepare(
    `INSERT INTO wh_outbox (event_id, app_id, hub_id, subscription_id, subscription_type, object_id, position, payload,
       status, attempt_number, first_attempt_at, next_attempt_at, updated_at)
     VALUES (?, ?, 7, 1, 'contact.creation', ?, ?, ?, 'pending', 0, NULL, 0, ?)`,
  ).run(
    eventId,
    appId,
    eventId.charCodeAt(0),
    ++position,
    JSON.stringify({ eventId: eventId.charCodeAt(0), subscriptionType: 'contact.creation', objectId: 1 }),
    T0,
  );
}

function attempt(appId: number, requestId: string, sentAt: number, statusCode: number, eventIds: string[]): void {
  const delivered = statusCode < 300;
  const data: DeliveryAttempted['data'] = {
    appId,
    requestId,
    url: 'http://127.0.0.1/hooks',
    sentAt,
    requestHeaders: { 'X-HubSpot-Request-Timestamp': String(sentAt) },
    statusCode,
    error: null,
    responseBody: null,
    durationMs: 3,
    items: eventIds.map((eventId) => ({
      eventId,
      attemptNumber: Number(db.prepare('SELECT attempt_number FROM wh_outbox WHERE event_id = ?').pluck().get(eventId)),
      attemptedAt: sentAt,
      outcome: delivered ? 'delivered' : 'retrying',
      nextAttemptAt: delivered ? null : sentAt + 60_000,
    })),
  };
  apply({ type: WebhooksEventType.DeliveryAttempted, data });
}

const prune = (appId: number, deliveredBefore: number) =>
  apply({ type: WebhooksEventType.DeliveriesPruned, data: { appId, deliveredBefore, prunedAt: deliveredBefore } });

const log = (appId: number) =>
  new OutboxQueries(db)
    .deliveries(appId, { limit: 100 })
    .results.map((d) => [d.id, d.status, d.attemptLog.map((a) => a.requestId)]);

beforeEach(() => {
  db = new Database(':memory:');
  projection.setup(db);
  position = 0;
  for (const id of ['a', 'b', 'c', 'd']) item(1, id);
  item(2, 'e');
  attempt(1, 'r1', T0, 500, ['a', 'b', 'c']);
  attempt(1, 'r2', T0 + 60_000, 200, ['a', 'b']);
  attempt(1, 'r3', T0 + 60_000, 200, ['d']);
  attempt(2, 'r4', T0, 200, ['e']);
});

afterEach(() => db.close());

describe('webhooks-outbox pruning', () => {
  it('drops delivered items past the edge with their requests; an item that shared a request with a kept one stays whole', () => {
    prune(1, T0 + 31 * DAY);
    // d went with r3; a and b shared r1 with c (retrying): they stay with r1 and r2.
    expect(log(1)).toEqual([
      ['a', 'delivered', ['r1', 'r2']],
      ['b', 'delivered', ['r1', 'r2']],
      ['c', 'retrying', ['r1']],
    ]);
    expect(log(2)).toEqual([['e', 'delivered', ['r4']]]);

    attempt(1, 'r5', T0 + 2 * DAY, 200, ['c']);
    prune(1, T0 + 32 * DAY);
    expect(log(1)).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM wh_attempt_items').pluck().get()).toBe(1);
    expect(db.prepare('SELECT request_id FROM wh_attempts').pluck().all()).toEqual(['r4']);
  });

  it('keeps everything delivered at or after the edge', () => {
    prune(1, T0 + 60_000);
    expect(log(1).map(([id]) => id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rebuilds each body from its items, in order, with the attempt number each was sent with', () => {
    const [a] = new OutboxQueries(db).deliveries(1, { limit: 1 }).results;
    expect(a!.attemptLog.map((x) => JSON.parse(x.request.body) as unknown)).toEqual([
      ['a', 'b', 'c'].map((id) => ({
        eventId: id.charCodeAt(0),
        subscriptionType: 'contact.creation',
        attemptNumber: 0,
        objectId: 1,
      })),
      ['a', 'b'].map((id) => ({
        eventId: id.charCodeAt(0),
        subscriptionType: 'contact.creation',
        attemptNumber: 1,
        objectId: 1,
      })),
    ]);
  });

  it('shows the body an attempt recorded before bodies were rebuilt carries', () => {
    const old: DeliveryAttempted['data'] = {
      appId: 2,
      requestId: 'r0',
      url: 'http://127.0.0.1/hooks',
      sentAt: T0,
      requestHeaders: {},
      requestBody: '[{"as":"sent"}]',
      statusCode: 200,
      error: null,
      responseBody: null,
      durationMs: 1,
      items: [{ eventId: 'e', attemptNumber: 1, attemptedAt: T0, outcome: 'delivered', nextAttemptAt: null }],
    };
    apply({ type: WebhooksEventType.DeliveryAttempted, data: old });
    const [e] = new OutboxQueries(db).deliveries(2, { limit: 1 }).results;
    expect(e!.attemptLog.map((a) => a.request.body)).toEqual([
      '[{"eventId":101,"subscriptionType":"contact.creation","attemptNumber":0,"objectId":1}]',
      '[{"as":"sent"}]',
    ]);
  });
});

describe('webhooks-outbox set-up', () => {
  it('replaces a version-1 read model’s attempt tables (bodies NOT NULL, no item order); the version bump rebuilds them', () => {
    const v1 = new Database(':memory:');
    v1.exec(`CREATE TABLE wh_attempts (request_id TEXT PRIMARY KEY, app_id INTEGER NOT NULL, position INTEGER NOT NULL,
        url TEXT NOT NULL, sent_at INTEGER NOT NULL, request_headers TEXT NOT NULL, request_body TEXT NOT NULL,
        status_code INTEGER, error TEXT, response_body TEXT, duration_ms INTEGER NOT NULL);
      CREATE TABLE wh_attempt_items (event_id TEXT NOT NULL, request_id TEXT NOT NULL, attempt_number INTEGER NOT NULL,
        outcome TEXT NOT NULL, next_attempt_at INTEGER, PRIMARY KEY (event_id, request_id));`);
    projection.setup(v1);
    const columns = (table: string) =>
      v1.prepare(`PRAGMA table_info(${table})`).all() as { name: string; notnull: number }[];
    expect(columns('wh_attempts').find((c) => c.name === 'request_body')!.notnull).toBe(0);
    expect(columns('wh_attempt_items').map((c) => c.name)).toContain('ordinal');
    projection.setup(v1); // a start at version 2 leaves them as they are
    expect(columns('wh_attempt_items').map((c) => c.name)).toContain('ordinal');
    expect(projection.version).toBeGreaterThan(1);
    v1.close();
  });
});
