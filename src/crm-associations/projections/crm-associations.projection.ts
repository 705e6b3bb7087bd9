import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CrmRecordEventType, type RecordEvent } from '../../crm-records/crm-records.events';
import {
  type AssociationDefinitionCreated,
  type AssociationDefinitionDeleted,
  type AssociationDefinitionUpdated,
  type AssociationDefinition,
  type CustomObjectSchemaCreated,
  LimitsEventType,
} from '../../crm-schema/crm-schema.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { type AssociationEvent, AssociationEventType } from '../domain/association-events';
import { type AssociationLimitEvent, AssociationLimitEventType } from '../domain/association-limits.decider';
import { schemaInverseTypeId } from '../domain/association-types';

export const CRM_ASSOCIATIONS_PROJECTION = 'crm-associations';

type LabelEvent =
  | AssociationDefinitionCreated
  | AssociationDefinitionUpdated
  | AssociationDefinitionDeleted
  | CustomObjectSchemaCreated;
type Followed = AssociationEvent | AssociationLimitEvent | RecordEvent | LabelEvent;

/**
 * The associations read model: one row per direction and type of each associated record pair (so
 * a record's associations to a type are one index range), and the live records of each account
 * (from the records' published events), which reads join so that an archived, merged or deleted
 * record's associations are not shown.
 */
@Injectable()
export class CrmAssociationsProjection implements Projection<Followed> {
  readonly name = CRM_ASSOCIATIONS_PROJECTION;
  // 2: crm_association_labels, the account's labels (from the CRM schema module's definitions).
  // 3: crm_association_schema_types, the schemas' own definitions (the types of custom objects' pairs).
  readonly version = 3;
  readonly handles: readonly Followed['type'][] = [
    LimitsEventType.CustomObjectSchemaCreated,
    LimitsEventType.AssociationDefinitionCreated,
    LimitsEventType.AssociationDefinitionUpdated,
    LimitsEventType.AssociationDefinitionDeleted,
    AssociationEventType.AssociationTypesAdded,
    AssociationEventType.AssociationTypesRemoved,
    AssociationLimitEventType.AssociationLimitSet,
    AssociationLimitEventType.AssociationLimitRemoved,
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordPropertiesChanged,
    CrmRecordEventType.RecordArchived,
    CrmRecordEventType.RecordRestored,
    CrmRecordEventType.RecordMerged,
    CrmRecordEventType.RecordPurged,
  ];

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS crm_associations (
        hub_id INTEGER NOT NULL,
        from_type TEXT NOT NULL,
        from_id INTEGER NOT NULL,
        to_type TEXT NOT NULL,
        to_id INTEGER NOT NULL,
        category TEXT NOT NULL,
        type_id INTEGER NOT NULL,
        PRIMARY KEY (hub_id, from_type, from_id, to_type, to_id, category, type_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_association_records (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        id INTEGER NOT NULL,
        label TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (hub_id, object_type_id, id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_association_limits (
        hub_id INTEGER NOT NULL,
        from_type TEXT NOT NULL,
        to_type TEXT NOT NULL,
        category TEXT NOT NULL,
        type_id INTEGER NOT NULL,
        max_to_object_ids INTEGER NOT NULL,
        PRIMARY KEY (hub_id, from_type, to_type, category, type_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_association_labels (
        hub_id INTEGER NOT NULL,
        id INTEGER NOT NULL,
        from_type TEXT NOT NULL,
        to_type TEXT NOT NULL,
        label TEXT NOT NULL,
        inverse_id INTEGER NOT NULL,
        inverse_label TEXT NOT NULL,
        PRIMARY KEY (hub_id, id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_association_schema_types (
        hub_id INTEGER NOT NULL,
        id INTEGER NOT NULL,
        from_type TEXT NOT NULL,
        to_type TEXT NOT NULL,
        name TEXT,
        inverse_id INTEGER NOT NULL,
        PRIMARY KEY (hub_id, id)
      ) WITHOUT ROWID;
    `);
  }

  reset(db: Database.Database): void {
    db.exec(
      'DELETE FROM crm_associations; DELETE FROM crm_association_records; DELETE FROM crm_association_limits;' +
        ' DELETE FROM crm_association_labels; DELETE FROM crm_association_schema_types;',
    );
  }

  /**
   * A schema's own definition (from `associatedObjects` or `POST …/schemas/{type}/associations`): an
   * unlabeled USER_DEFINED type of its pair from the custom type, with the definition's id; the way
   * back takes the id past SCHEMA_INVERSE_TYPE_OFFSET (the schema module hands each definition one id).
   */
  private putSchemaType(db: Database.Database, hubId: number, a: AssociationDefinition): void {
    cachedStatement(
      db,
      `INSERT OR REPLACE INTO crm_association_schema_types (hub_id, id, from_type, to_type, name, inverse_id)
         VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(hubId, Number(a.id), a.fromObjectTypeId, a.toObjectTypeId, a.name, schemaInverseTypeId(Number(a.id)));
  }

  apply(event: Recorded<Followed>, db: Database.Database): void {
    switch (event.type) {
      case LimitsEventType.CustomObjectSchemaCreated:
        for (const a of event.data.associations) this.putSchemaType(db, event.data.hubId, a);
        return;
      case LimitsEventType.AssociationDefinitionCreated: {
        const { hubId, association: a } = event.data;
        if (a.label === undefined) {
          this.putSchemaType(db, hubId, a);
          return;
        }
        if (a.inverseId === undefined) return;
        cachedStatement(
          db,
          `INSERT OR REPLACE INTO crm_association_labels
             (hub_id, id, from_type, to_type, label, inverse_id, inverse_label) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          hubId,
          Number(a.id),
          a.fromObjectTypeId,
          a.toObjectTypeId,
          a.label,
          Number(a.inverseId),
          a.inverseLabel ?? a.label,
        );
        return;
      }
      case LimitsEventType.AssociationDefinitionUpdated: {
        const d = event.data;
        cachedStatement(
          db,
          'UPDATE crm_association_labels SET label = ?, inverse_label = ? WHERE hub_id = ? AND id = ?',
        ).run(d.label, d.inverseLabel, d.hubId, Number(d.associationId));
        return;
      }
      case LimitsEventType.AssociationDefinitionDeleted:
        for (const table of ['crm_association_labels', 'crm_association_schema_types']) {
          cachedStatement(db, `DELETE FROM ${table} WHERE hub_id = ? AND id = ?`).run(
            event.data.hubId,
            Number(event.data.associationId),
          );
        }
        return;
      case AssociationEventType.AssociationTypesAdded:
      case AssociationEventType.AssociationTypesRemoved: {
        const { hubId, a, b, types } = event.data;
        const sql =
          event.type === AssociationEventType.AssociationTypesAdded
            ? `INSERT OR IGNORE INTO crm_associations (hub_id, from_type, from_id, to_type, to_id, category, type_id)
               VALUES (?, ?, ?, ?, ?, ?, ?)`
            : `DELETE FROM crm_associations WHERE hub_id = ? AND from_type = ? AND from_id = ? AND to_type = ?
                 AND to_id = ? AND category = ? AND type_id = ?`;
        const statement = cachedStatement(db, sql);
        for (const t of types) {
          statement.run(hubId, a.objectTypeId, a.id, b.objectTypeId, b.id, t.category, t.typeId);
          statement.run(hubId, b.objectTypeId, b.id, a.objectTypeId, a.id, t.category, t.inverseTypeId);
        }
        return;
      }
      case AssociationLimitEventType.AssociationLimitSet: {
        const d = event.data;
        cachedStatement(
          db,
          `INSERT OR REPLACE INTO crm_association_limits
             (hub_id, from_type, to_type, category, type_id, max_to_object_ids) VALUES (?, ?, ?, ?, ?, ?)`,
        ).run(d.hubId, d.fromObjectTypeId, d.toObjectTypeId, d.category, d.typeId, d.maxToObjectIds);
        return;
      }
      case AssociationLimitEventType.AssociationLimitRemoved: {
        const d = event.data;
        cachedStatement(
          db,
          `DELETE FROM crm_association_limits
            WHERE hub_id = ? AND from_type = ? AND to_type = ? AND category = ? AND type_id = ?`,
        ).run(d.hubId, d.fromObjectTypeId, d.toObjectTypeId, d.category, d.typeId);
        return;
      }
      // A restored record is live again: its associations (kept on their pair streams) show again.
      case CrmRecordEventType.RecordCreated:
      case CrmRecordEventType.RecordRestored:
        cachedStatement(
          db,
          'INSERT OR REPLACE INTO crm_association_records (hub_id, object_type_id, id, label) VALUES (?, ?, ?, ?)',
        ).run(
          event.data.hubId,
          event.data.objectTypeId,
          event.data.id,
          displayLabel(event.data.objectTypeId, event.data.properties) ?? '',
        );
        return;
      case CrmRecordEventType.RecordPropertiesChanged: {
        const label = displayLabel(event.data.objectTypeId, event.data.changes);
        if (label === undefined) return;
        cachedStatement(
          db,
          'UPDATE crm_association_records SET label = ? WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).run(label, event.data.hubId, event.data.objectTypeId, event.data.id);
        return;
      }
      case CrmRecordEventType.RecordArchived:
      case CrmRecordEventType.RecordMerged:
      case CrmRecordEventType.RecordPurged:
        cachedStatement(
          db,
          'DELETE FROM crm_association_records WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).run(event.data.hubId, event.data.objectTypeId, event.data.id);
        return;
      default:
        return;
    }
  }
}

/** The value HubSpot shows a record by (the limits endpoints' sample labels): e-mail, name, deal name, subject. */
const LABEL_PROPERTY: Record<string, string> = { '0-1': 'email', '0-2': 'name', '0-3': 'dealname', '0-5': 'subject' };

function displayLabel(objectTypeId: string, values: Readonly<Record<string, string>>): string | undefined {
  const property = LABEL_PROPERTY[objectTypeId];
  return property === undefined ? undefined : values[property];
}
