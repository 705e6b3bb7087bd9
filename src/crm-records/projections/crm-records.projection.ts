import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { CrmRecordEventType, type RecordEvent } from '../domain/record-events';

export const CRM_RECORDS_PROJECTION = 'crm-records';

/**
 * The CRM records read model: one row per record with its current values (JSON), its dates and
 * whether it is archived. Lists page by id within (account, object type, archived); contacts are
 * found by e-mail through an index on the lower-cased value. `crm_record_counts` keeps the live
 * (non-archived) records per account and type: every create reads it for the record ceiling, and a
 * COUNT over the records grew with the account (a scan of 100,000 index entries per batch).
 */
@Injectable()
export class CrmRecordsProjection implements Projection<RecordEvent> {
  readonly name = CRM_RECORDS_PROJECTION;
  readonly version = 2;
  readonly handles: readonly RecordEvent['type'][] = [
    CrmRecordEventType.RecordCreated,
    CrmRecordEventType.RecordPropertiesChanged,
    CrmRecordEventType.RecordArchived,
    CrmRecordEventType.RecordRestored,
    CrmRecordEventType.RecordMerged,
    CrmRecordEventType.RecordPurged,
  ];

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS crm_records (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        id INTEGER NOT NULL,
        properties TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        archived_at INTEGER,
        PRIMARY KEY (hub_id, object_type_id, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS crm_records_page ON crm_records (hub_id, object_type_id, archived, id);
      CREATE INDEX IF NOT EXISTS crm_records_email ON crm_records (
        hub_id, object_type_id, lower(json_extract(properties, '$.email'))
      );
      CREATE TABLE IF NOT EXISTS crm_record_counts (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        live INTEGER NOT NULL,
        PRIMARY KEY (hub_id, object_type_id)
      ) WITHOUT ROWID;
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM crm_records; DELETE FROM crm_record_counts;');
  }

  apply(event: Recorded<RecordEvent>, db: Database.Database): void {
    switch (event.type) {
      case CrmRecordEventType.RecordCreated: {
        const d = event.data;
        const row = [d.hubId, d.objectTypeId, d.id, JSON.stringify(d.properties), d.createdAt, d.createdAt];
        const insert =
          'INTO crm_records (hub_id, object_type_id, id, properties, created_at, updated_at, archived) VALUES (?, ?, ?, ?, ?, ?, 0)';
        // The usual create has no row yet; one made again replaces its row (live from now on).
        if (cachedStatement(db, `INSERT OR IGNORE ${insert}`).run(...row).changes === 0) {
          const wasLive = this.isLive(db, d.hubId, d.objectTypeId, d.id);
          cachedStatement(db, `INSERT OR REPLACE ${insert}`).run(...row);
          if (!wasLive) this.count(db, d.hubId, d.objectTypeId, 1);
        } else this.count(db, d.hubId, d.objectTypeId, 1);
        return;
      }
      case CrmRecordEventType.RecordPropertiesChanged: {
        const d = event.data;
        const row = cachedStatement(
          db,
          'SELECT properties FROM crm_records WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).get(d.hubId, d.objectTypeId, d.id) as { properties: string } | undefined;
        if (!row) return;
        const properties = JSON.parse(row.properties) as Record<string, string>;
        for (const [name, value] of Object.entries(d.changes)) {
          if (value === '') delete properties[name];
          else properties[name] = value;
        }
        cachedStatement(
          db,
          'UPDATE crm_records SET properties = ?, updated_at = ? WHERE hub_id = ? AND object_type_id = ? AND id = ?',
        ).run(JSON.stringify(properties), d.changedAt, d.hubId, d.objectTypeId, d.id);
        return;
      }
      case CrmRecordEventType.RecordArchived: {
        const d = event.data;
        if (this.isLive(db, d.hubId, d.objectTypeId, d.id)) this.count(db, d.hubId, d.objectTypeId, -1);
        cachedStatement(
          db,
          `UPDATE crm_records SET archived = 1, archived_at = ?, updated_at = ?
            WHERE hub_id = ? AND object_type_id = ? AND id = ?`,
        ).run(d.archivedAt, d.archivedAt, d.hubId, d.objectTypeId, d.id);
        return;
      }
      // Live again under its id; HubSpot sets the modified date on a restore.
      case CrmRecordEventType.RecordRestored: {
        const d = event.data;
        const restored = cachedStatement(
          db,
          `UPDATE crm_records SET archived = 0, archived_at = NULL, updated_at = ?
            WHERE hub_id = ? AND object_type_id = ? AND id = ? AND archived = 1`,
        ).run(d.restoredAt, d.hubId, d.objectTypeId, d.id);
        if (restored.changes > 0) this.count(db, d.hubId, d.objectTypeId, 1);
        else {
          // Already live: only its modified date moves.
          cachedStatement(
            db,
            'UPDATE crm_records SET archived_at = NULL, updated_at = ? WHERE hub_id = ? AND object_type_id = ? AND id = ?',
          ).run(d.restoredAt, d.hubId, d.objectTypeId, d.id);
        }
        return;
      }
      // Merged away or GDPR-deleted: no read finds it, archived or not, and no value of it stays here.
      case CrmRecordEventType.RecordMerged:
      case CrmRecordEventType.RecordPurged: {
        const d = event.data;
        if (this.isLive(db, d.hubId, d.objectTypeId, d.id)) this.count(db, d.hubId, d.objectTypeId, -1);
        cachedStatement(db, 'DELETE FROM crm_records WHERE hub_id = ? AND object_type_id = ? AND id = ?').run(
          d.hubId,
          d.objectTypeId,
          d.id,
        );
        return;
      }
      case CrmRecordEventType.RecordIdVoided:
        return;
    }
  }

  private isLive(db: Database.Database, hubId: number, type: string, id: number): boolean {
    const row = cachedStatement(
      db,
      'SELECT archived FROM crm_records WHERE hub_id = ? AND object_type_id = ? AND id = ?',
    ).get(hubId, type, id) as { archived: number } | undefined;
    return row !== undefined && row.archived === 0;
  }

  private count(db: Database.Database, hubId: number, type: string, by: 1 | -1): void {
    cachedStatement(
      db,
      `INSERT INTO crm_record_counts (hub_id, object_type_id, live) VALUES (?, ?, ?)
       ON CONFLICT (hub_id, object_type_id) DO UPDATE SET live = live + excluded.live`,
    ).run(hubId, type, by);
  }
}
