import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { CustomObjectSchemaCreated, LimitsEvent, LimitsEventType } from '../domain/limits-events';
import { standardObjectTypeById } from '../domain/object-types';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { LimitsReadCache } from '../application/limits-read-cache';

export const LIMITS_PROJECTION = 'limits';

/** Every table this projection owns, in a stable order (rebuild checks compare them). */
export const LIMITS_TABLES = [
  'limits_properties',
  'limits_schemas',
  'limits_overrides',
  'limits_usage',
  'limits_account_usage',
  'limits_property_groups',
] as const;

/**
 * Properties, custom object schemas, per-account overrides, and the limit-usage read model per
 * account and object type, from the events of the accounts' limits streams. The usage rows are
 * recounted from the property and schema rows of the one (account, object type) an event touches,
 * so they cannot drift from them.
 */
@Injectable()
export class LimitsProjection implements Projection<LimitsEvent> {
  readonly handles: readonly LimitsEvent['type'][] = [
    LimitsEventType.PropertyCreated,
    LimitsEventType.PropertyArchived,
    LimitsEventType.CustomObjectSchemaCreated,
    LimitsEventType.CustomObjectSchemaArchived,
    LimitsEventType.CustomObjectSchemaPurged,
    LimitsEventType.AccountLimitsOverridden,
    LimitsEventType.CustomObjectSchemaUpdated,
    LimitsEventType.AssociationDefinitionCreated,
    LimitsEventType.AssociationDefinitionDeleted,
    LimitsEventType.PropertyUpdated,
    LimitsEventType.PropertyGroupCreated,
    LimitsEventType.PropertyGroupUpdated,
    LimitsEventType.PropertyGroupArchived,
  ];
  readonly name = LIMITS_PROJECTION;
  // 2: limits_properties.updated_user_id (who last changed a property), filled by the rebuild.
  readonly version = 2;

  /** `cache`: the shared read model's figures per account, forgotten before this writes an account's rows. */
  constructor(private readonly cache?: LimitsReadCache) {}

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS limits_properties (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        name TEXT NOT NULL,
        definition TEXT NOT NULL,
        calculated INTEGER NOT NULL,
        created_user_id INTEGER,
        updated_user_id INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        archived_at INTEGER,
        PRIMARY KEY (hub_id, object_type_id, name)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS limits_schemas (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        fully_qualified_name TEXT NOT NULL,
        singular_label TEXT NOT NULL,
        plural_label TEXT NOT NULL,
        body TEXT NOT NULL,
        created_user_id INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        archived_at INTEGER,
        PRIMARY KEY (hub_id, object_type_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS limits_overrides (
        hub_id INTEGER PRIMARY KEY,
        overrides TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS limits_usage (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        singular_label TEXT NOT NULL,
        plural_label TEXT NOT NULL,
        custom_properties INTEGER NOT NULL,
        calculated_properties INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS limits_account_usage (
        hub_id INTEGER PRIMARY KEY,
        custom_object_types INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS limits_property_groups (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        name TEXT NOT NULL,
        label TEXT NOT NULL,
        display_order INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        archived_at INTEGER,
        PRIMARY KEY (hub_id, object_type_id, name)
      ) WITHOUT ROWID;
    `);
    this.addUpdatedUserColumn(db);
  }

  /** A read model made by version 1 lacks the column; the version bump then rebuilds it from zero. */
  private addUpdatedUserColumn(db: Database.Database): void {
    const columns = db.prepare('PRAGMA table_info(limits_properties)').all() as Array<{ name: string }>;
    if (!columns.some((c) => c.name === 'updated_user_id')) {
      db.exec('ALTER TABLE limits_properties ADD COLUMN updated_user_id INTEGER');
    }
  }

  reset(db: Database.Database): void {
    this.cache?.clear();
    for (const t of LIMITS_TABLES) db.exec(`DELETE FROM ${t}`);
  }

  apply(event: Recorded<LimitsEvent>, db: Database.Database): void {
    // Before any row of the account changes (an in-memory read model's apply forgets it too: harmless).
    this.cache?.forget(event.data.hubId);
    switch (event.type) {
      case LimitsEventType.PropertyCreated: {
        const d = event.data;
        cachedStatement(
          db,
          `INSERT OR REPLACE INTO limits_properties
             (hub_id, object_type_id, name, definition, calculated, created_user_id, updated_user_id, created_at, updated_at,
              archived, archived_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL)`,
        ).run(
          d.hubId,
          d.objectTypeId,
          d.property.name,
          JSON.stringify(d.property),
          d.calculated ? 1 : 0,
          d.createdUserId,
          d.createdUserId,
          d.createdAt,
          d.createdAt,
        );
        refreshUsage(db, d.hubId, d.objectTypeId);
        return;
      }
      case LimitsEventType.PropertyArchived: {
        const d = event.data;
        cachedStatement(
          db,
          `UPDATE limits_properties SET archived = 1, archived_at = ?, updated_at = ?
           WHERE hub_id = ? AND object_type_id = ? AND name = ?`,
        ).run(d.archivedAt, d.archivedAt, d.hubId, d.objectTypeId, d.name);
        refreshUsage(db, d.hubId, d.objectTypeId);
        return;
      }
      case LimitsEventType.CustomObjectSchemaCreated: {
        const d = event.data;
        const body: SchemaBody = {
          description: d.description,
          primaryDisplayProperty: d.primaryDisplayProperty,
          secondaryDisplayProperties: d.secondaryDisplayProperties,
          searchableProperties: d.searchableProperties,
          requiredProperties: d.requiredProperties,
          associations: d.associations,
        };
        cachedStatement(
          db,
          `INSERT OR REPLACE INTO limits_schemas
             (hub_id, object_type_id, id, name, fully_qualified_name, singular_label, plural_label, body,
              created_user_id, created_at, updated_at, archived, archived_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL)`,
        ).run(
          d.hubId,
          d.objectTypeId,
          d.id,
          d.name,
          d.fullyQualifiedName,
          d.labels.singular,
          d.labels.plural,
          JSON.stringify(body),
          d.createdUserId,
          d.createdAt,
          d.createdAt,
        );
        refreshUsage(db, d.hubId, d.objectTypeId);
        return;
      }
      case LimitsEventType.CustomObjectSchemaArchived: {
        const d = event.data;
        cachedStatement(
          db,
          `UPDATE limits_schemas SET archived = 1, archived_at = ?, updated_at = ? WHERE hub_id = ? AND object_type_id = ?`,
        ).run(d.archivedAt, d.archivedAt, d.hubId, d.objectTypeId);
        refreshUsage(db, d.hubId, d.objectTypeId);
        return;
      }
      case LimitsEventType.CustomObjectSchemaPurged: {
        const d = event.data;
        cachedStatement(db, 'DELETE FROM limits_schemas WHERE hub_id = ? AND object_type_id = ?').run(
          d.hubId,
          d.objectTypeId,
        );
        cachedStatement(db, 'DELETE FROM limits_properties WHERE hub_id = ? AND object_type_id = ?').run(
          d.hubId,
          d.objectTypeId,
        );
        cachedStatement(db, 'DELETE FROM limits_property_groups WHERE hub_id = ? AND object_type_id = ?').run(
          d.hubId,
          d.objectTypeId,
        );
        refreshUsage(db, d.hubId, d.objectTypeId);
        return;
      }
      case LimitsEventType.AccountLimitsOverridden: {
        const d = event.data;
        cachedStatement(
          db,
          `INSERT INTO limits_overrides (hub_id, overrides, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(hub_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`,
        ).run(d.hubId, JSON.stringify(d.overrides), d.overriddenAt);
        return;
      }
      case LimitsEventType.CustomObjectSchemaUpdated: {
        const { hubId, objectTypeId, changes, updatedAt, updatedUserId } = event.data;
        const { labels, ...bodyChanges } = changes;
        updateSchemaBody(db, hubId, objectTypeId, updatedAt, (body) => ({ ...body, ...bodyChanges, updatedUserId }));
        if (labels) {
          cachedStatement(
            db,
            'UPDATE limits_schemas SET singular_label = ?, plural_label = ? WHERE hub_id = ? AND object_type_id = ?',
          ).run(labels.singular, labels.plural, hubId, objectTypeId);
          refreshUsage(db, hubId, objectTypeId); // the usage rows carry the labels
        }
        return;
      }
      case LimitsEventType.AssociationDefinitionCreated: {
        const { hubId, association, createdAt } = event.data;
        updateSchemaBody(db, hubId, association.fromObjectTypeId, createdAt, (body) => ({
          ...body,
          associations: [...body.associations, association],
        }));
        return;
      }
      case LimitsEventType.AssociationDefinitionDeleted: {
        const { hubId, fromObjectTypeId, associationId, deletedAt } = event.data;
        updateSchemaBody(db, hubId, fromObjectTypeId, deletedAt, (body) => ({
          ...body,
          associations: body.associations.filter((a) => a.id !== associationId),
        }));
        return;
      }
      default:
        applyPropertyChange(event, db);
    }
  }
}

/**
 * The JSON `body` column of `limits_schemas`: the schema's fields without a column of their own,
 * as CustomObjectSchemaCreated carries them, plus who last changed it (PATCH).
 */
export type SchemaBody = Pick<
  CustomObjectSchemaCreated['data'],
  | 'description'
  | 'primaryDisplayProperty'
  | 'secondaryDisplayProperties'
  | 'searchableProperties'
  | 'requiredProperties'
  | 'associations'
> & { updatedUserId?: number | null };

/** Rewrites one schema row's JSON body (display lists, description, associations) and its updated_at. */
function updateSchemaBody(
  db: Database.Database,
  hubId: number,
  objectTypeId: string,
  at: number,
  change: (body: SchemaBody) => SchemaBody,
): void {
  const row = cachedStatement(db, 'SELECT body FROM limits_schemas WHERE hub_id = ? AND object_type_id = ?').get(
    hubId,
    objectTypeId,
  ) as { body: string } | undefined;
  if (!row) return;
  const body = change(JSON.parse(row.body) as SchemaBody);
  cachedStatement(db, 'UPDATE limits_schemas SET body = ?, updated_at = ? WHERE hub_id = ? AND object_type_id = ?').run(
    JSON.stringify(body),
    at,
    hubId,
    objectTypeId,
  );
}

/** Recounts one (account, object type) usage row and the account's custom object type count. */
function refreshUsage(db: Database.Database, hubId: number, objectTypeId: string): void {
  const standard = standardObjectTypeById(objectTypeId);
  const schema = standard
    ? null
    : (cachedStatement(
        db,
        'SELECT singular_label, plural_label, archived FROM limits_schemas WHERE hub_id = ? AND object_type_id = ?',
      ).get(hubId, objectTypeId) as { singular_label: string; plural_label: string; archived: number } | undefined);
  const active = standard !== null || (schema !== undefined && schema !== null && schema.archived === 0);
  const counts = cachedStatement(
    db,
    `SELECT COUNT(*) AS custom, COALESCE(SUM(calculated), 0) AS calculated FROM limits_properties
       WHERE hub_id = ? AND object_type_id = ? AND archived = 0`,
  ).get(hubId, objectTypeId) as { custom: number; calculated: number };
  if (!active || counts.custom === 0) {
    cachedStatement(db, 'DELETE FROM limits_usage WHERE hub_id = ? AND object_type_id = ?').run(hubId, objectTypeId);
  } else {
    const singular = standard ? standard.singularLabel : schema!.singular_label;
    const plural = standard ? standard.pluralLabel : schema!.plural_label;
    cachedStatement(
      db,
      `INSERT INTO limits_usage (hub_id, object_type_id, singular_label, plural_label, custom_properties, calculated_properties)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(hub_id, object_type_id) DO UPDATE SET singular_label = excluded.singular_label,
         plural_label = excluded.plural_label, custom_properties = excluded.custom_properties,
         calculated_properties = excluded.calculated_properties`,
    ).run(hubId, objectTypeId, singular, plural, counts.custom, counts.calculated);
  }
  const types = cachedStatement(db, 'SELECT COUNT(*) AS n FROM limits_schemas WHERE hub_id = ? AND archived = 0').get(
    hubId,
  ) as {
    n: number;
  };
  cachedStatement(
    db,
    `INSERT INTO limits_account_usage (hub_id, custom_object_types) VALUES (?, ?)
     ON CONFLICT(hub_id) DO UPDATE SET custom_object_types = excluded.custom_object_types`,
  ).run(hubId, types.n);
}

/** PATCH of a property and the property groups (the events added with them). */
function applyPropertyChange(event: Recorded<LimitsEvent>, db: Database.Database): void {
  switch (event.type) {
    case LimitsEventType.PropertyUpdated: {
      const d = event.data;
      cachedStatement(
        db,
        `UPDATE limits_properties SET definition = ?, calculated = ?, updated_at = ?, updated_user_id = ?
         WHERE hub_id = ? AND object_type_id = ? AND name = ? AND archived = 0`,
      ).run(
        JSON.stringify(d.property),
        d.calculated ? 1 : 0,
        d.updatedAt,
        d.updatedUserId,
        d.hubId,
        d.objectTypeId,
        d.property.name,
      );
      refreshUsage(db, d.hubId, d.objectTypeId);
      return;
    }
    case LimitsEventType.PropertyGroupCreated: {
      const d = event.data;
      cachedStatement(
        db,
        `INSERT OR REPLACE INTO limits_property_groups
           (hub_id, object_type_id, name, label, display_order, created_at, updated_at, archived, archived_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, NULL)`,
      ).run(d.hubId, d.objectTypeId, d.group.name, d.group.label, d.group.displayOrder, d.createdAt, d.createdAt);
      return;
    }
    case LimitsEventType.PropertyGroupUpdated: {
      const d = event.data;
      cachedStatement(
        db,
        `UPDATE limits_property_groups SET label = ?, display_order = ?, updated_at = ?
         WHERE hub_id = ? AND object_type_id = ? AND name = ? AND archived = 0`,
      ).run(d.group.label, d.group.displayOrder, d.updatedAt, d.hubId, d.objectTypeId, d.group.name);
      return;
    }
    case LimitsEventType.PropertyGroupArchived: {
      const d = event.data;
      cachedStatement(
        db,
        `UPDATE limits_property_groups SET archived = 1, archived_at = ?, updated_at = ?
         WHERE hub_id = ? AND object_type_id = ? AND name = ? AND archived = 0`,
      ).run(d.archivedAt, d.archivedAt, d.hubId, d.objectTypeId, d.name);
      return;
    }
    default:
      return;
  }
}
