import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { InstallClocks } from '../application/install-clocks';
import { InstallClockEventType, type InstallClockEvent } from '../domain/install-clock';

/**
 * Feeds the in-memory InstallClocks from the checkpointed feed, and keeps the clocks ahead of real
 * time in one small table so that a restart reloads them instead of replaying the history.
 */
@Injectable()
export class InstallClocksProjection implements Projection<InstallClockEvent> {
  readonly name = 'oauth-install-clocks';
  readonly version = 1;
  readonly handles: readonly InstallClockEvent['type'][] = [
    InstallClockEventType.InstallClockAdvanced,
    InstallClockEventType.InstallClockReset,
  ];

  constructor(private readonly clocks: InstallClocks) {}

  setup(db: Database.Database): void {
    db.exec(`
      CREATE TABLE IF NOT EXISTS oauth_install_clocks (
        app_id         INTEGER NOT NULL,
        hub_id         INTEGER NOT NULL,
        offset_seconds INTEGER NOT NULL,
        PRIMARY KEY (app_id, hub_id)
      ) WITHOUT ROWID;
    `);
    this.clocks.clear();
    const rows = cachedStatement(db, 'SELECT app_id, hub_id, offset_seconds FROM oauth_install_clocks').all() as {
      app_id: number;
      hub_id: number;
      offset_seconds: number;
    }[];
    for (const r of rows) this.clocks.set(r.app_id, r.hub_id, r.offset_seconds * 1000);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM oauth_install_clocks;');
    this.clocks.clear();
  }

  apply(e: Recorded<InstallClockEvent>, db: Database.Database): void {
    switch (e.type) {
      case InstallClockEventType.InstallClockAdvanced:
        cachedStatement(
          db,
          `INSERT INTO oauth_install_clocks (app_id, hub_id, offset_seconds) VALUES (?, ?, ?)
           ON CONFLICT (app_id, hub_id) DO UPDATE SET offset_seconds = excluded.offset_seconds`,
        ).run(e.data.appId, e.data.hubId, e.data.offsetSeconds);
        this.clocks.set(e.data.appId, e.data.hubId, e.data.offsetSeconds * 1000);
        break;
      case InstallClockEventType.InstallClockReset:
        cachedStatement(db, 'DELETE FROM oauth_install_clocks WHERE app_id = ? AND hub_id = ?').run(
          e.data.appId,
          e.data.hubId,
        );
        this.clocks.remove(e.data.appId, e.data.hubId);
        break;
    }
  }
}
