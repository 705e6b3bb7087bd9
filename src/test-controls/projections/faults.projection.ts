import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { FaultRegistry } from '../application/fault-registry';
import { ControlsEventType, type FaultEvent, type FaultSet } from '../domain/fault-events';

/**
 * Feeds the in-memory FaultRegistry from the checkpointed feed, and keeps the faults in force in
 * one small table so that a restart reloads them instead of replaying the history.
 */
@Injectable()
export class FaultsProjection implements Projection<FaultEvent> {
  readonly name = 'controls-faults';
  readonly version = 1;
  readonly handles: readonly FaultEvent['type'][] = [
    ControlsEventType.FaultSet,
    ControlsEventType.FaultCleared,
    ControlsEventType.AppFaultsCleared,
  ];

  constructor(private readonly registry: FaultRegistry) {}

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS controls_faults (
        fault_id TEXT    PRIMARY KEY,
        app_id   INTEGER NOT NULL,
        fault    TEXT    NOT NULL
      ); -- with rowids: the faults are reloaded in the order they were set
    `);
    this.registry.clear();
    const rows = cachedStatement(db, 'SELECT fault FROM controls_faults ORDER BY rowid').all() as { fault: string }[];
    for (const r of rows) this.registry.add(JSON.parse(r.fault) as FaultSet['data']);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM controls_faults;');
    this.registry.clear();
  }

  apply(e: Recorded<FaultEvent>, db: Database.Database): void {
    switch (e.type) {
      case ControlsEventType.FaultSet:
        cachedStatement(db, 'INSERT OR REPLACE INTO controls_faults (fault_id, app_id, fault) VALUES (?, ?, ?)').run(
          e.data.faultId,
          e.data.appId,
          JSON.stringify(e.data),
        );
        this.registry.add(e.data);
        break;
      case ControlsEventType.FaultCleared:
        cachedStatement(db, 'DELETE FROM controls_faults WHERE fault_id = ?').run(e.data.faultId);
        this.registry.remove(e.data.appId, [e.data.faultId]);
        break;
      case ControlsEventType.AppFaultsCleared:
        for (const id of e.data.faultIds) cachedStatement(db, 'DELETE FROM controls_faults WHERE fault_id = ?').run(id);
        this.registry.remove(e.data.appId, e.data.faultIds);
        break;
    }
  }
}
