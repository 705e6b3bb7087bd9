import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CrmRecordEventType, type RecordEvent } from '../../crm-records/crm-records.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { type AssociationEvent, AssociationEventType } from '../domain/association-events';

export const CRM_ASSOCIATIONS_PROJECTION = 'crm-associations';

/**
 * The associations read model: one row per direction and type of each associated record pair (so
 * a record's associations to a type are one index range), and the live records of each account
 * (from the records' published events), which reads join so that an archived, merged or deleted
 * record's associations are not shown.
 */
@Injectable()
export class CrmAssociationsProjection implements Projection<AssociationEvent | RecordEvent> {
  readonly name = CRM_ASSOCIATIONS_PROJECTION;
  readonly version = 1;
  readonly handles: readonly (AssociationEvent | RecordEvent)['type'][] = [
    AssociationEventType.AssociationTypesAdded,
    AssociationEventType.AssociationTypesRemoved,
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordArchived,
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
        PRIMARY KEY (hub_id, object_type_id, id)
      ) WITHOUT ROWID;
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM crm_associations; DELETE FROM crm_association_records;');
  }

  apply(event: Recorded<AssociationEvent | RecordEvent>, db: Database.Database): void {
    switch (event.type) {
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
      case CrmRecordEventType.RecordCreated:
        cachedStatement(
          db,
          'INSERT OR IGNORE INTO crm_association_records (hub_id, object_type_id, id) VALUES (?, ?, ?)',
        ).run(event.data.hubId, event.data.objectTypeId, event.data.id);
        return;
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
