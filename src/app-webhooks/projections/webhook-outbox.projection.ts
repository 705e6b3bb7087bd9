import type Database from 'better-sqlite3';
import {
  type AssociationEvent,
  AssociationEventType,
  HUBSPOT_DEFINED_TYPES,
} from '../../crm-associations/crm-associations.events';
import { CrmRecordEventType, type RecordEvent } from '../../crm-records/crm-records.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { payloadItemsFor, type RecordChange, type SubscriptionRef } from '../domain/deliveries';
import { readScopesOf } from '../domain/subscription-types';
import { WebhooksEventType, type WebhooksEvent } from '../domain/webhook-events';
import { OAuthEventType, type InstallEvent } from '../../oauth/oauth.events';
import { applyConfigEvent, CONFIG_EVENT_TYPES, CONFIG_TABLES_DDL, CONFIG_TABLES_RESET } from './webhook-config-tables';

type OutboxEvent = WebhooksEvent | RecordEvent | InstallEvent | AssociationEvent;

export const WEBHOOK_OUTBOX_PROJECTION = 'webhooks-outbox';

/** The CRM's changes webhooks deliver: the records' and the associations' published events. */
export const CHANGE_EVENT_TYPES = [
  CrmRecordEventType.RecordCreated,
  CrmRecordEventType.RecordPropertiesChanged,
  CrmRecordEventType.RecordArchived,
  CrmRecordEventType.RecordRestored,
  CrmRecordEventType.RecordMerged,
  CrmRecordEventType.RecordPurged,
  AssociationEventType.AssociationTypesAdded,
  AssociationEventType.AssociationTypesRemoved,
] as const;

/**
 * The delivery thread's read model (in its own file, webhooks-outbox.sqlite): the apps' webhook
 * settings and subscriptions, the installs, and the outbox, applied in feed order, so each record
 * change is matched against the subscriptions and installs as they were at its position (a
 * subscription sees only changes after it was made; an install without the object's read scope
 * sees nothing). Each matching (change, subscription) is one outbox item with its payload and a
 * stable eventId; delivery attempts and redeliveries move it on. Rebuildable from the events: the
 * attempts replay onto the items they were made for.
 */
export class WebhookOutboxProjection implements Projection<OutboxEvent> {
  readonly name = WEBHOOK_OUTBOX_PROJECTION;
  // 2: attempts name their items in body order (the body is rebuilt, not stored); pruning.
  // 3: in a file of its own, on the delivery thread.
  readonly version = 3;
  readonly handles: readonly OutboxEvent['type'][] = [
    ...CONFIG_EVENT_TYPES,
    WebhooksEventType.DeliveryAttempted,
    WebhooksEventType.RedeliveryRequested,
    WebhooksEventType.DispatchLeaseTaken,
    WebhooksEventType.DispatchLeaseReleased,
    WebhooksEventType.DeliveriesPruned,
    OAuthEventType.AppInstalled,
    OAuthEventType.AppInstallScopesChanged,
    OAuthEventType.AppUninstalled,
    ...CHANGE_EVENT_TYPES,
  ];

  /**
   * Who may hear of a change, by account and object type: the active subscriptions of apps with
   * settings, installed there with the type's read scope. Read from the tables once and kept until
   * a settings, subscription or install event changes them: the join was most of what a record event
   * cost this projection, on the API's thread. The tables stay the truth; setup (every start and
   * restart, so after any rolled-back batch) and reset empty it.
   */
  private readonly audience = new Map<string, AudienceMember[]>();

  setup(db: Database.Database): void {
    this.audience.clear();
    // Version 1 kept every body (NOT NULL) and no item order: its tables go (version 2 rebuilds them).
    const attempts = db.prepare('PRAGMA table_info(wh_attempts)').all() as { name: string; notnull: number }[];
    if (attempts.some((c) => c.name === 'request_body' && c.notnull === 1))
      db.exec('DROP TABLE wh_attempts; DROP TABLE IF EXISTS wh_attempt_items;');
    db.exec(CONFIG_TABLES_DDL);
    db.exec(`
      CREATE TABLE IF NOT EXISTS wh_installs (
        hub_id INTEGER NOT NULL, app_id INTEGER NOT NULL, scopes TEXT NOT NULL, PRIMARY KEY (hub_id, app_id));
      CREATE TABLE IF NOT EXISTS wh_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, app_id INTEGER NOT NULL,
        hub_id INTEGER NOT NULL, subscription_id INTEGER NOT NULL, subscription_type TEXT NOT NULL,
        object_id INTEGER NOT NULL, position INTEGER NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL,
        attempt_number INTEGER NOT NULL, first_attempt_at INTEGER, next_attempt_at INTEGER NOT NULL,
        last_status_code INTEGER, last_error TEXT, updated_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS wh_outbox_due ON wh_outbox (status, app_id, seq);
      CREATE INDEX IF NOT EXISTS wh_outbox_app ON wh_outbox (app_id, seq);
      CREATE TABLE IF NOT EXISTS wh_attempts (
        request_id TEXT PRIMARY KEY, app_id INTEGER NOT NULL, position INTEGER NOT NULL, url TEXT NOT NULL,
        sent_at INTEGER NOT NULL, request_headers TEXT NOT NULL,
        request_body TEXT, status_code INTEGER, error TEXT, response_body TEXT, duration_ms INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS wh_attempt_items (
        event_id TEXT NOT NULL, request_id TEXT NOT NULL, attempt_number INTEGER NOT NULL, outcome TEXT NOT NULL,
        next_attempt_at INTEGER, ordinal INTEGER NOT NULL, PRIMARY KEY (event_id, request_id));
      CREATE INDEX IF NOT EXISTS wh_attempt_items_request ON wh_attempt_items (request_id, ordinal);
    `);
  }

  reset(db: Database.Database): void {
    this.audience.clear();
    db.exec(CONFIG_TABLES_RESET);
    db.exec(`DELETE FROM wh_installs; DELETE FROM wh_outbox; DELETE FROM sqlite_sequence WHERE name = 'wh_outbox';
      DELETE FROM wh_attempts; DELETE FROM wh_attempt_items;`);
  }

  apply(event: Recorded<OutboxEvent>, db: Database.Database): void {
    const run = (sql: string, ...params: unknown[]) => cachedStatement(db, sql).run(...params);
    if (AUDIENCE_EVENTS.has(event.type)) this.audience.clear();
    if (applyConfigEvent(event as Recorded<WebhooksEvent>, db)) return;
    switch (event.type) {
      case WebhooksEventType.DeliveryAttempted: {
        const d = event.data;
        run(
          'INSERT OR IGNORE INTO wh_attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          d.requestId,
          d.appId,
          event.position,
          d.url,
          d.sentAt,
          JSON.stringify(d.requestHeaders),
          // Older attempts carry their body; newer ones are rebuilt from their items (the log does it).
          d.requestBody ?? null,
          d.statusCode,
          d.error,
          d.responseBody,
          d.durationMs,
        );
        // Two prepared statements per item with bound values: in-process a third cheaper than one
        // `json_each` statement each over the items' JSON (which SQLite parsed again for every field).
        // (`+app_id` keeps the planner on the event_id index: through app_id it would walk the app's items.)
        const logItem = cachedStatement(db, 'INSERT OR IGNORE INTO wh_attempt_items VALUES (?, ?, ?, ?, ?, ?)');
        const moveOn = cachedStatement(
          db,
          `UPDATE wh_outbox SET status = ?, attempt_number = max(attempt_number, ? + 1),
             first_attempt_at = coalesce(first_attempt_at, ?), next_attempt_at = coalesce(?, next_attempt_at),
             last_status_code = ?, last_error = ?, updated_at = ?
           WHERE event_id = ? AND +app_id = ?`,
        );
        d.items.forEach((item, ordinal) => {
          const next = item.nextAttemptAt ?? null;
          logItem.run(item.eventId, d.requestId, item.attemptNumber, item.outcome, next, ordinal);
          moveOn.run(
            item.outcome,
            item.attemptNumber,
            item.attemptedAt ?? null,
            next,
            d.statusCode,
            d.error,
            d.sentAt,
            item.eventId,
            d.appId,
          );
        });
        return;
      }
      case WebhooksEventType.RedeliveryRequested: {
        const d = event.data;
        run(
          `UPDATE wh_outbox SET status = 'pending', next_attempt_at = ?, first_attempt_at = NULL, updated_at = ?
           WHERE event_id = ? AND app_id = ?`,
          d.requestedAt,
          d.requestedAt,
          d.eventId,
          d.appId,
        );
        return;
      }
      case WebhooksEventType.DeliveriesPruned:
        pruneDelivered(event.data.appId, event.data.deliveredBefore, db);
        return;
      case WebhooksEventType.DispatchLeaseTaken:
      case WebhooksEventType.DispatchLeaseReleased:
        // Nothing to apply: followed so the read models' position passes them at once (a dispatcher
        // that took a lease waits for it; on EventStoreDB, types no projection follows are passed
        // only at the feed's next checkpoint).
        return;
      case OAuthEventType.AppInstalled:
      case OAuthEventType.AppInstallScopesChanged:
        run(
          'INSERT OR REPLACE INTO wh_installs VALUES (?, ?, ?)',
          event.data.hubId,
          event.data.appId,
          JSON.stringify(event.data.scopes),
        );
        return;
      case OAuthEventType.AppUninstalled:
        run('DELETE FROM wh_installs WHERE hub_id = ? AND app_id = ?', event.data.hubId, event.data.appId);
        return;
      case AssociationEventType.AssociationTypesAdded:
      case AssociationEventType.AssociationTypesRemoved:
        for (const change of associationChangesOf(event)) this.enqueue(change, event.position, db);
        return;
      default: {
        const change = recordChangeOf(event);
        if (change) this.enqueue(change, event.position, db);
      }
    }
  }

  /** One outbox item per matching active subscription of an app with settings, installed with the read scope. */
  private enqueue(change: RecordChange, position: number, db: Database.Database): void {
    const subscriptions = this.audienceOf(change.hubId, change.objectTypeId, db);
    if (subscriptions.length === 0) return;
    const insert = cachedStatement(
      db,
      `INSERT OR IGNORE INTO wh_outbox (event_id, app_id, hub_id, subscription_id, subscription_type, object_id,
         position, payload, status, attempt_number, first_attempt_at, next_attempt_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, NULL, 0, ?)`,
    );
    for (const subscription of subscriptions) {
      for (const { eventId, item } of payloadItemsFor(change, subscription, subscription.appId)) {
        insert.run(
          eventId,
          subscription.appId,
          change.hubId,
          subscription.id,
          subscription.eventType,
          change.objectId,
          position,
          JSON.stringify(item),
          change.occurredAt,
        );
      }
    }
  }

  /** The audience of a change to a record of `objectTypeId` in account `hubId`, from memory or the tables. */
  private audienceOf(hubId: number, objectTypeId: string, db: Database.Database): AudienceMember[] {
    const key = `${hubId}/${objectTypeId}`;
    let members = this.audience.get(key);
    if (members) return members;
    const rows = cachedStatement(
      db,
      `SELECT s.app_id, s.subscription_id, s.event_type, s.property_name, s.object_type_id, i.scopes
       FROM wh_subscriptions s
       JOIN wh_settings st ON st.app_id = s.app_id
       JOIN wh_installs i ON i.hub_id = ? AND i.app_id = s.app_id
       WHERE s.followed_type = ? AND s.active = 1
       ORDER BY s.app_id, s.subscription_id`,
    ).all(hubId, objectTypeId) as {
      app_id: number;
      subscription_id: number;
      event_type: string;
      property_name: string | null;
      object_type_id: string | null;
      scopes: string;
    }[];
    const readScopes = readScopesOf(objectTypeId);
    members = rows
      .filter((r) => readScopes.some((s) => (JSON.parse(r.scopes) as string[]).includes(s)))
      .map((r) => ({
        appId: r.app_id,
        id: r.subscription_id,
        eventType: r.event_type,
        propertyName: r.property_name,
        objectTypeId: r.object_type_id,
      }));
    // A bound for services with very many accounts: forgetting only costs the next change a read.
    if (this.audience.size >= AUDIENCE_KEPT) this.audience.clear();
    this.audience.set(key, members);
    return members;
  }
}

/** A subscription that hears of a change, with its app. */
interface AudienceMember extends SubscriptionRef {
  appId: number;
}

/** The events that change who hears of a record change (settings, subscriptions, installs). */
const AUDIENCE_EVENTS: ReadonlySet<string> = new Set([
  WebhooksEventType.SettingsConfigured,
  WebhooksEventType.SettingsCleared,
  WebhooksEventType.SubscriptionCreated,
  WebhooksEventType.SubscriptionActivationChanged,
  WebhooksEventType.SubscriptionDeleted,
  OAuthEventType.AppInstalled,
  OAuthEventType.AppInstallScopesChanged,
  OAuthEventType.AppUninstalled,
]);
/** Accounts × object types whose audience is kept in memory at most. */
const AUDIENCE_KEPT = 10_000;

/**
 * The app's items delivered before `before` leave the read model with the requests that held them,
 * but only where every item of those requests goes too: an item that shared a request with one kept
 * (failed, abandoned, retrying, delivered later), directly or through other requests, stays with all
 * its requests, so the log still shows each item's every attempt and can rebuild each body it sent.
 */
function pruneDelivered(appId: number, before: number, db: Database.Database): void {
  const run = (sql: string, ...params: unknown[]) => cachedStatement(db, sql).run(...params);
  db.exec('CREATE TEMP TABLE IF NOT EXISTS wh_prune (event_id TEXT PRIMARY KEY)');
  run('DELETE FROM temp.wh_prune');
  run(
    `INSERT INTO temp.wh_prune SELECT event_id FROM wh_outbox WHERE status = 'delivered' AND app_id = ? AND updated_at < ?`,
    appId,
    before,
  );
  // Requests that held a candidate and an item staying: their candidates stay too (until none is left).
  const mixed = cachedStatement(
    db,
    `SELECT r.request_id FROM (SELECT DISTINCT request_id FROM wh_attempt_items
       WHERE event_id IN (SELECT event_id FROM temp.wh_prune)) r
     WHERE EXISTS (SELECT 1 FROM wh_attempt_items o WHERE o.request_id = r.request_id
       AND o.event_id NOT IN (SELECT event_id FROM temp.wh_prune))`,
  ).pluck();
  for (let requests = mixed.all() as string[]; requests.length > 0; requests = mixed.all() as string[]) {
    for (const requestId of requests)
      run(
        'DELETE FROM temp.wh_prune WHERE event_id IN (SELECT event_id FROM wh_attempt_items WHERE request_id = ?)',
        requestId,
      );
  }
  run(`DELETE FROM wh_attempts WHERE request_id IN
         (SELECT request_id FROM wh_attempt_items WHERE event_id IN (SELECT event_id FROM temp.wh_prune))`);
  run('DELETE FROM wh_attempt_items WHERE event_id IN (SELECT event_id FROM temp.wh_prune)');
  run('DELETE FROM wh_outbox WHERE event_id IN (SELECT event_id FROM temp.wh_prune)');
  run('DELETE FROM temp.wh_prune');
}

function recordChangeOf(event: Recorded<OutboxEvent>): RecordChange | null {
  const common = { sourceEventId: event.metadata.eventId, mergedInto: null, properties: {} };
  switch (event.type) {
    case CrmRecordEventType.RecordCreated: {
      const d = event.data;
      return {
        ...common,
        ...ids(d),
        occurredAt: d.createdAt,
        kind: 'creation',
        properties: d.properties,
        appId: d.appId,
        userId: d.userId,
      };
    }
    case CrmRecordEventType.RecordPropertiesChanged: {
      const d = event.data;
      return {
        ...common,
        ...ids(d),
        occurredAt: d.changedAt,
        kind: 'propertyChange',
        properties: d.changes,
        appId: d.appId,
        userId: d.userId,
      };
    }
    case CrmRecordEventType.RecordArchived: {
      const d = event.data;
      return { ...common, ...ids(d), occurredAt: d.archivedAt, kind: 'deletion', appId: d.appId, userId: d.userId };
    }
    case CrmRecordEventType.RecordRestored: {
      const d = event.data;
      return { ...common, ...ids(d), occurredAt: d.restoredAt, kind: 'restore', appId: d.appId, userId: d.userId };
    }
    case CrmRecordEventType.RecordMerged: {
      const d = event.data;
      return {
        ...common,
        ...ids(d),
        occurredAt: d.mergedAt,
        kind: 'merge',
        mergedInto: d.into,
        appId: d.appId,
        userId: d.userId,
      };
    }
    case CrmRecordEventType.RecordPurged: {
      const d = event.data;
      return { ...common, ...ids(d), occurredAt: d.purgedAt, kind: 'privacyDeletion', appId: null, userId: null };
    }
    default:
      return null;
  }
}

/** HubSpot's Primary association types (`HUBSPOT_DEFINED` category), by type id. */
const PRIMARY_TYPE_IDS = new Set(HUBSPOT_DEFINED_TYPES.filter((t) => t.label === 'Primary').map((t) => t.typeId));

/**
 * An association change as HubSpot reports it: one item per side (from each record to the other,
 * same-type pairs included) and per type added or removed. Each (side, type) is its own change, so
 * the eventId it names stays distinct and stable.
 */
function associationChangesOf(event: Recorded<AssociationEvent>): RecordChange[] {
  const d = event.data;
  const removed = event.type === AssociationEventType.AssociationTypesRemoved;
  const sides = [
    { from: d.a, to: d.b, typeOf: (t: (typeof d.types)[number]) => t.typeId },
    { from: d.b, to: d.a, typeOf: (t: (typeof d.types)[number]) => t.inverseTypeId },
  ];
  return sides.flatMap(({ from, to, typeOf }) =>
    d.types.map((t) => {
      const typeId = typeOf(t);
      return {
        sourceEventId: `${event.metadata.eventId}/${from.objectTypeId}-${from.id}/${t.category}-${typeId}`,
        hubId: d.hubId,
        objectTypeId: from.objectTypeId,
        objectId: from.id,
        occurredAt: d.at,
        kind: 'associationChange' as const,
        properties: {},
        mergedInto: null,
        association: {
          toObjectTypeId: to.objectTypeId,
          toObjectId: to.id,
          typeId,
          category: t.category,
          removed,
          primary: t.category === 'HUBSPOT_DEFINED' && PRIMARY_TYPE_IDS.has(typeId),
        },
        appId: d.appId,
        userId: d.userId,
      };
    }),
  );
}

const ids = (d: { hubId: number; objectTypeId: string; id: number }) => ({
  hubId: d.hubId,
  objectTypeId: d.objectTypeId,
  objectId: d.id,
});
