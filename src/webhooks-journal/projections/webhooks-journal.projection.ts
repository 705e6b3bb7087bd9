import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { readScopesOf } from '../../app-webhooks';
import { AssociationEventType, type AssociationEvent } from '../../crm-associations/crm-associations.events';
import { CrmRecordEventType, type RecordEvent } from '../../crm-records/crm-records.events';
import { OAuthEventType, type InstallEvent } from '../../oauth/oauth.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import {
  conditionsHold,
  entryOffset,
  type JournalChange,
  type JournalEntryFile,
  objectSubscriptionTakes,
  type RecordChangeFacts,
} from '../domain/journal-entries';
import {
  type FilterCondition,
  type JournalEvent,
  JournalEventType,
  type JournalSubscription,
} from '../domain/journal-events';

type JournalFeedEvent = JournalEvent | RecordEvent | AssociationEvent | InstallEvent;

export const WEBHOOKS_JOURNAL_PROJECTION = 'webhooks-journal';

interface SubscriptionRow {
  subscription_id: number;
  body: string;
}

/**
 * The webhooks journal: each app's subscriptions and filters, and its entries, applied in feed
 * order so each change is matched against the subscriptions, filters and installs as they were at
 * its position. An entry is ordered by the global position of the event it comes from and named by
 * an offset derived from that event's id, so a rebuild from the history gives the same journal.
 * Entries are kept here past their 3 days; the reads hide what is older on the install's clock.
 * The records' current values are kept too, for the snapshots (taken as of the request's position).
 */
@Injectable()
export class WebhooksJournalProjection implements Projection<JournalFeedEvent> {
  readonly name = WEBHOOKS_JOURNAL_PROJECTION;
  readonly version = 1;
  /**
   * Who may journal a record's change, by account and object type: the apps installed there with the
   * type's read scope that have subscriptions, with those subscriptions and their filters parsed. Read
   * from the tables once and kept until a subscription, filter or install event changes them (the
   * per-event reads were most of this projection's cost on the API's thread, for accounts whose apps
   * journal nothing too). The tables stay the truth; setup (every start and restart, so after any
   * rolled-back batch) and reset empty it, as the webhook outbox does with its audience.
   */
  private readonly audience = new Map<string, JournalAudienceMember[]>();
  readonly handles: readonly JournalFeedEvent['type'][] = [
    JournalEventType.SubscriptionCreated,
    JournalEventType.SubscriptionDeleted,
    JournalEventType.FilterCreated,
    JournalEventType.FilterDeleted,
    JournalEventType.SnapshotRequested,
    OAuthEventType.AppInstalled,
    OAuthEventType.AppInstallScopesChanged,
    OAuthEventType.AppUninstalled,
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordPropertiesChanged,
    CrmRecordEventType.RecordArchived,
    CrmRecordEventType.RecordRestored,
    CrmRecordEventType.RecordMerged,
    CrmRecordEventType.RecordPurged,
    AssociationEventType.AssociationTypesAdded,
    AssociationEventType.AssociationTypesRemoved,
  ];

  setup(db: Database.Database): void {
    this.audience.clear();
    db.exec(`
      CREATE TABLE IF NOT EXISTS jr_subscriptions (
        app_id INTEGER NOT NULL, subscription_id INTEGER NOT NULL, subscription_type TEXT NOT NULL,
        portal_id INTEGER, body TEXT NOT NULL, created_at INTEGER NOT NULL,
        PRIMARY KEY (app_id, subscription_id));
      CREATE TABLE IF NOT EXISTS jr_filters (
        app_id INTEGER NOT NULL, filter_id INTEGER NOT NULL, subscription_id INTEGER NOT NULL,
        conditions TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (app_id, filter_id));
      CREATE INDEX IF NOT EXISTS jr_filters_subscription ON jr_filters (app_id, subscription_id);
      CREATE TABLE IF NOT EXISTS jr_installs (
        hub_id INTEGER NOT NULL, app_id INTEGER NOT NULL, scopes TEXT NOT NULL, PRIMARY KEY (hub_id, app_id));
      CREATE TABLE IF NOT EXISTS jr_records (
        hub_id INTEGER NOT NULL, object_type_id TEXT NOT NULL, object_id INTEGER NOT NULL, properties TEXT NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, object_id));
      CREATE TABLE IF NOT EXISTS jr_entries (
        offset TEXT PRIMARY KEY, app_id INTEGER NOT NULL, hub_id INTEGER NOT NULL, position INTEGER NOT NULL,
        occurred_at INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS jr_entries_app ON jr_entries (app_id, position);
      CREATE INDEX IF NOT EXISTS jr_entries_app_hub ON jr_entries (app_id, hub_id, position);
      CREATE TABLE IF NOT EXISTS jr_snapshots (
        status_id TEXT PRIMARY KEY, app_id INTEGER NOT NULL, initiated_at INTEGER NOT NULL, completed_at INTEGER,
        status TEXT NOT NULL, error_code TEXT, message TEXT);
    `);
  }

  reset(db: Database.Database): void {
    this.audience.clear();
    db.exec(`DELETE FROM jr_subscriptions; DELETE FROM jr_filters; DELETE FROM jr_installs; DELETE FROM jr_records;
      DELETE FROM jr_entries; DELETE FROM jr_snapshots;`);
  }

  apply(event: Recorded<JournalFeedEvent>, db: Database.Database): void {
    const run = (sql: string, ...params: unknown[]) => cachedStatement(db, sql).run(...params);
    if (AUDIENCE_EVENTS.has(event.type)) this.audience.clear();
    switch (event.type) {
      case JournalEventType.SubscriptionCreated: {
        const d = event.data;
        run(
          'INSERT OR REPLACE INTO jr_subscriptions VALUES (?, ?, ?, ?, ?, ?)',
          d.appId,
          d.subscriptionId,
          d.subscription.subscriptionType,
          d.subscription.portalId,
          JSON.stringify(d.subscription),
          d.createdAt,
        );
        return;
      }
      case JournalEventType.SubscriptionDeleted:
        run(
          'DELETE FROM jr_subscriptions WHERE app_id = ? AND subscription_id = ?',
          event.data.appId,
          event.data.subscriptionId,
        );
        run(
          'DELETE FROM jr_filters WHERE app_id = ? AND subscription_id = ?',
          event.data.appId,
          event.data.subscriptionId,
        );
        return;
      case JournalEventType.FilterCreated: {
        const d = event.data;
        run(
          'INSERT OR REPLACE INTO jr_filters VALUES (?, ?, ?, ?, ?)',
          d.appId,
          d.filterId,
          d.subscriptionId,
          JSON.stringify(d.conditions),
          d.createdAt,
        );
        return;
      }
      case JournalEventType.FilterDeleted:
        run('DELETE FROM jr_filters WHERE app_id = ? AND filter_id = ?', event.data.appId, event.data.filterId);
        return;
      case JournalEventType.SnapshotRequested:
        this.snapshot(event, db);
        return;
      case OAuthEventType.AppInstalled:
        run(
          'INSERT OR REPLACE INTO jr_installs VALUES (?, ?, ?)',
          event.data.hubId,
          event.data.appId,
          JSON.stringify(event.data.scopes),
        );
        this.lifecycle(event, 'APP_INSTALL', event.data.installedAt, db);
        return;
      case OAuthEventType.AppInstallScopesChanged:
        run(
          'UPDATE jr_installs SET scopes = ? WHERE hub_id = ? AND app_id = ?',
          JSON.stringify(event.data.scopes),
          event.data.hubId,
          event.data.appId,
        );
        return;
      case OAuthEventType.AppUninstalled:
        this.lifecycle(event, 'APP_UNINSTALL', event.data.uninstalledAt, db);
        run('DELETE FROM jr_installs WHERE hub_id = ? AND app_id = ?', event.data.hubId, event.data.appId);
        return;
      case AssociationEventType.AssociationTypesAdded:
      case AssociationEventType.AssociationTypesRemoved:
        this.association(event, db);
        return;
      case OAuthEventType.InstallAccessTokensExpired:
        return;
      default:
        this.recordChange(event, db);
    }
  }

  private installsOf(hubId: number, objectTypeId: string | null, db: Database.Database): number[] {
    const rows = cachedStatement(db, 'SELECT app_id, scopes FROM jr_installs WHERE hub_id = ? ORDER BY app_id').all(
      hubId,
    ) as { app_id: number; scopes: string }[];
    if (objectTypeId === null) return rows.map((r) => r.app_id);
    const read = readScopesOf(objectTypeId);
    return rows.filter((r) => (JSON.parse(r.scopes) as string[]).some((s) => read.includes(s))).map((r) => r.app_id);
  }

  private subscriptionsOf(appId: number, db: Database.Database): { id: number; s: JournalSubscription }[] {
    const rows = cachedStatement(
      db,
      'SELECT subscription_id, body FROM jr_subscriptions WHERE app_id = ? ORDER BY subscription_id',
    ).all(appId) as SubscriptionRow[];
    return rows.map((r) => ({ id: r.subscription_id, s: JSON.parse(r.body) as JournalSubscription }));
  }

  /** The apps that may journal a change to a record of `objectTypeId` in account `hubId`, from memory or the tables. */
  private audienceOf(hubId: number, objectTypeId: string, db: Database.Database): JournalAudienceMember[] {
    const key = `${hubId}/${objectTypeId}`;
    let members = this.audience.get(key);
    if (members) return members;
    members = [];
    for (const appId of this.installsOf(hubId, objectTypeId, db)) {
      const subscriptions = this.subscriptionsOf(appId, db).map(({ id, s }) => ({
        id,
        s,
        filters: (
          cachedStatement(db, 'SELECT conditions FROM jr_filters WHERE app_id = ? AND subscription_id = ?').all(
            appId,
            id,
          ) as { conditions: string }[]
        ).map((f) => JSON.parse(f.conditions) as FilterCondition[]),
      }));
      if (subscriptions.length > 0) members.push({ appId, subscriptions });
    }
    // A bound for services with very many accounts: forgetting only costs the next change a read.
    if (this.audience.size >= AUDIENCE_KEPT) this.audience.clear();
    this.audience.set(key, members);
    return members;
  }

  /** One entry of the app's journal for this event: its file (one change), ordered by the event's position. */
  private insertEntry(
    event: Recorded<JournalFeedEvent>,
    change: Omit<JournalChange, 'occurredAt'> & { occurredAt: number },
    db: Database.Database,
  ) {
    const offset = entryOffset(event.metadata.eventId, change.appId, 0);
    const file: JournalEntryFile = {
      offset,
      publishedAt: new Date(event.metadata.occurredAt).toISOString(),
      journalEvents: [{ ...change, occurredAt: new Date(change.occurredAt).toISOString() }],
    };
    cachedStatement(db, 'INSERT OR IGNORE INTO jr_entries VALUES (?, ?, ?, ?, ?, ?)').run(
      offset,
      change.appId,
      change.portalId,
      event.position,
      change.occurredAt,
      JSON.stringify(file),
    );
  }

  private recordChange(event: Recorded<JournalFeedEvent>, db: Database.Database): void {
    const change = this.applyToRecords(event, db);
    if (change === null) return;
    for (const { appId, subscriptions } of this.audienceOf(change.facts.portalId, change.facts.objectTypeId, db)) {
      const ids: number[] = [];
      let properties: Record<string, string> = {};
      for (const { id, s, filters } of subscriptions) {
        const kept = objectSubscriptionTakes(s, change.facts);
        // No filter keeps every change; else every condition of one of the filters must hold.
        if (kept === null || (filters.length > 0 && !filters.some((f) => conditionsHold(f, kept)))) continue;
        ids.push(id);
        properties = { ...properties, ...kept };
      }
      if (ids.length === 0) continue;
      const f = change.facts;
      this.insertEntry(
        event,
        {
          appId,
          portalId: f.portalId,
          occurredAt: change.occurredAt,
          action: f.action,
          subscriptionIds: ids,
          objectTypeId: f.objectTypeId,
          objectId: f.objectId,
          ...(f.action === 'CREATE' || f.action === 'UPDATE' ? { propertyChanges: properties } : {}),
          ...(change.mergedInto === null ? {} : { mergedIntoObjectId: change.mergedInto }),
          ...changeSourceOf(change.source),
        },
        db,
      );
    }
  }

  /** Keeps the records' current values (for snapshots) and reads the change the event makes. */
  private applyToRecords(
    event: Recorded<JournalFeedEvent>,
    db: Database.Database,
  ): {
    facts: RecordChangeFacts;
    occurredAt: number;
    mergedInto: number | null;
    source: { appId: number | null; userId: number | null } | null;
  } | null {
    const key = (d: { hubId: number; objectTypeId: string; id: number }) => [d.hubId, d.objectTypeId, d.id] as const;
    const facts = (
      d: { hubId: number; objectTypeId: string; id: number },
      action: RecordChangeFacts['action'],
      properties: Record<string, string> = {},
    ) => ({
      portalId: d.hubId,
      objectTypeId: d.objectTypeId,
      objectId: d.id,
      action,
      properties,
    });
    const remove = (d: { hubId: number; objectTypeId: string; id: number }) =>
      cachedStatement(db, 'DELETE FROM jr_records WHERE hub_id = ? AND object_type_id = ? AND object_id = ?').run(
        ...key(d),
      );
    switch (event.type) {
      case CrmRecordEventType.RecordCreated: {
        const d = event.data;
        cachedStatement(db, 'INSERT OR REPLACE INTO jr_records VALUES (?, ?, ?, ?)').run(
          ...key(d),
          JSON.stringify(d.properties),
        );
        return { facts: facts(d, 'CREATE', d.properties), occurredAt: d.createdAt, mergedInto: null, source: d };
      }
      case CrmRecordEventType.RecordPropertiesChanged: {
        const d = event.data;
        const row = cachedStatement(
          db,
          'SELECT properties FROM jr_records WHERE hub_id = ? AND object_type_id = ? AND object_id = ?',
        ).get(...key(d)) as { properties: string } | undefined;
        if (row) {
          const values = { ...(JSON.parse(row.properties) as Record<string, string>) };
          for (const [name, value] of Object.entries(d.changes)) {
            if (value === '') delete values[name];
            else values[name] = value;
          }
          cachedStatement(
            db,
            'UPDATE jr_records SET properties = ? WHERE hub_id = ? AND object_type_id = ? AND object_id = ?',
          ).run(JSON.stringify(values), ...key(d));
        }
        return { facts: facts(d, 'UPDATE', d.changes), occurredAt: d.changedAt, mergedInto: null, source: d };
      }
      case CrmRecordEventType.RecordArchived:
        remove(event.data);
        return {
          facts: facts(event.data, 'DELETE'),
          occurredAt: event.data.archivedAt,
          mergedInto: null,
          source: event.data,
        };
      // Its values come back for the snapshots (removed on its archive) from the restore itself.
      case CrmRecordEventType.RecordRestored: {
        const d = event.data;
        cachedStatement(db, 'INSERT OR REPLACE INTO jr_records VALUES (?, ?, ?, ?)').run(
          ...key(d),
          JSON.stringify(d.properties),
        );
        return { facts: facts(d, 'RESTORE'), occurredAt: d.restoredAt, mergedInto: null, source: d };
      }
      case CrmRecordEventType.RecordMerged:
        remove(event.data);
        return {
          facts: facts(event.data, 'MERGE'),
          occurredAt: event.data.mergedAt,
          mergedInto: event.data.into,
          source: event.data,
        };
      case CrmRecordEventType.RecordPurged:
        remove(event.data);
        return {
          facts: facts(event.data, 'GDPR_DELETE'),
          occurredAt: event.data.purgedAt,
          mergedInto: null,
          source: null,
        };
      default:
        return null;
    }
  }

  private association(event: Recorded<AssociationEvent>, db: Database.Database): void {
    const d = event.data;
    const action =
      event.type === AssociationEventType.AssociationTypesAdded ? 'ASSOCIATION_ADDED' : 'ASSOCIATION_REMOVED';
    const sides = [
      { from: d.a, to: d.b, typeIds: d.types.map((t) => t.typeId) },
      { from: d.b, to: d.a, typeIds: d.types.map((t) => t.inverseTypeId) },
    ];
    for (const { appId, subscriptions } of this.audienceOf(d.hubId, d.a.objectTypeId, db)) {
      for (const side of sides) {
        const ids = subscriptions
          .filter(
            ({ s }) =>
              s.subscriptionType === 'ASSOCIATION' &&
              s.portalId === d.hubId &&
              s.objectTypeId === side.from.objectTypeId &&
              s.associatedObjectTypeIds.includes(side.to.objectTypeId) &&
              s.actions.includes(action) &&
              (s.objectIds.length === 0 || s.objectIds.includes(side.from.id)),
          )
          .map(({ id }) => id);
        if (ids.length === 0) continue;
        // One entry per app and event: from the first end a subscription of the app follows.
        this.insertEntry(
          event,
          {
            appId,
            portalId: d.hubId,
            occurredAt: d.at,
            action,
            subscriptionIds: ids,
            objectTypeId: side.from.objectTypeId,
            objectId: side.from.id,
            associatedObjectTypeId: side.to.objectTypeId,
            associatedObjectId: side.to.id,
            associationTypeIds: side.typeIds,
            ...changeSourceOf(d),
          },
          db,
        );
        break;
      }
    }
  }

  private lifecycle(
    event: Recorded<InstallEvent>,
    action: 'APP_INSTALL' | 'APP_UNINSTALL',
    occurredAt: number,
    db: Database.Database,
  ): void {
    const { appId, hubId } = event.data as { appId: number; hubId: number };
    const ids = this.subscriptionsOf(appId, db)
      .filter(({ s }) => s.subscriptionType === 'APP_LIFECYCLE_EVENT' && s.actions.includes(action))
      .map(({ id }) => id);
    if (ids.length === 0) return;
    this.insertEntry(event, { appId, portalId: hubId, occurredAt, action, subscriptionIds: ids }, db);
  }

  /** A snapshot succeeds when the app is installed in the account and the record exists as of the request. */
  private snapshot(event: Recorded<JournalEvent>, db: Database.Database): void {
    if (event.type !== JournalEventType.SnapshotRequested) return;
    const d = event.data;
    const status = (s: string, errorCode: string | null, message: string | null) =>
      cachedStatement(db, 'INSERT OR REPLACE INTO jr_snapshots VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        d.snapshotStatusId,
        d.appId,
        d.requestedAt,
        d.requestedAt,
        s,
        errorCode,
        message,
      );
    if (!this.installsOf(d.portalId, d.objectTypeId, db).includes(d.appId)) {
      status(
        'FAILED',
        'PERMISSION_DENIED',
        `The app is not installed in account ${d.portalId} with a read scope of ${d.objectTypeId}.`,
      );
      return;
    }
    const row = cachedStatement(
      db,
      'SELECT properties FROM jr_records WHERE hub_id = ? AND object_type_id = ? AND object_id = ?',
    ).get(d.portalId, d.objectTypeId, d.objectId) as { properties: string } | undefined;
    if (!row) {
      status(
        'FAILED',
        'VALIDATION_ERROR',
        `Object ${d.objectTypeId}/${d.objectId} does not exist in account ${d.portalId}.`,
      );
      return;
    }
    const values = JSON.parse(row.properties) as Record<string, string>;
    const properties =
      d.properties.length === 0
        ? values
        : Object.fromEntries(d.properties.filter((p) => p in values).map((p) => [p, values[p]!]));
    this.insertEntry(
      event,
      {
        appId: d.appId,
        portalId: d.portalId,
        occurredAt: d.requestedAt,
        action: 'SNAPSHOT',
        subscriptionIds: [],
        objectTypeId: d.objectTypeId,
        objectId: d.objectId,
        propertyChanges: properties,
        snapshotStatusId: d.snapshotStatusId,
      },
      db,
    );
    status('SUCCESS', null, null);
  }
}

/** An app that may journal a record type's changes in an account, with its subscriptions and their filters. */
interface JournalAudienceMember {
  appId: number;
  subscriptions: { id: number; s: JournalSubscription; filters: FilterCondition[][] }[];
}

/** The events that change who may journal a record change (subscriptions, filters, installs). */
const AUDIENCE_EVENTS: ReadonlySet<string> = new Set([
  JournalEventType.SubscriptionCreated,
  JournalEventType.SubscriptionDeleted,
  JournalEventType.FilterCreated,
  JournalEventType.FilterDeleted,
  OAuthEventType.AppInstalled,
  OAuthEventType.AppInstallScopesChanged,
  OAuthEventType.AppUninstalled,
]);
/** Accounts × object types whose audience is kept in memory at most. */
const AUDIENCE_KEPT = 10_000;

function changeSourceOf(source: { appId: number | null; userId: number | null } | null): {
  changeSource: string;
  sourceId?: string;
} {
  if (source === null) return { changeSource: 'GDPR' };
  if (source.appId !== null) return { changeSource: 'INTEGRATION', sourceId: String(source.appId) };
  if (source.userId !== null) return { changeSource: 'CRM_UI', sourceId: `userId:${source.userId}` };
  return { changeSource: 'API' };
}
