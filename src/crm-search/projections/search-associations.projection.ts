import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { AssociationEventType, type AssociationEvent } from '../../crm-associations/crm-associations.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';

/**
 * The associations search filters read (`associations.{type}`), from the associations module's
 * published events: `search_assocs`, one row per direction and type of each association (so a record
 * is associated while any row of the pair is left), keyed for "the records of this type associated
 * with that record". Whether the other end is live is asked of `search_docs` at search time.
 */
@Injectable()
export class SearchAssociationsProjection implements Projection<AssociationEvent> {
  readonly name = 'crm-search-associations';
  readonly version = 1;
  readonly handles: readonly AssociationEvent['type'][] = [
    AssociationEventType.AssociationTypesAdded,
    AssociationEventType.AssociationTypesRemoved,
  ];

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS search_assocs (
        hub_id INTEGER NOT NULL,
        object_type_id TEXT NOT NULL,
        id INTEGER NOT NULL,
        to_type TEXT NOT NULL,
        to_id INTEGER NOT NULL,
        type_key TEXT NOT NULL,
        PRIMARY KEY (hub_id, object_type_id, to_type, to_id, id, type_key)
      ) WITHOUT ROWID;
    `);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM search_assocs');
  }

  apply(event: Recorded<AssociationEvent>, db: Database.Database): void {
    const { hubId, a, b, types } = event.data;
    const statement =
      event.type === AssociationEventType.AssociationTypesAdded
        ? cachedStatement(
            db,
            'INSERT OR IGNORE INTO search_assocs (hub_id, object_type_id, id, to_type, to_id, type_key) VALUES (?, ?, ?, ?, ?, ?)',
          )
        : cachedStatement(
            db,
            'DELETE FROM search_assocs WHERE hub_id = ? AND object_type_id = ? AND id = ? AND to_type = ? AND to_id = ? AND type_key = ?',
          );
    for (const t of types) {
      statement.run(hubId, a.objectTypeId, a.id, b.objectTypeId, b.id, `${t.category}:${t.typeId}`);
      statement.run(hubId, b.objectTypeId, b.id, a.objectTypeId, a.id, `${t.category}:${t.inverseTypeId}`);
    }
  }
}
