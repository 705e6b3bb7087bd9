import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { InstallClocks } from '../../platform/clock';
import { InstallClockEventType, type InstallClockEvent } from '../domain/install-clock';

/**
 * Feeds the in-memory InstallClocks from the checkpointed feed, and keeps the clocks in one small
 * table (one row per install that ever had one) so that a restart reloads them instead of replaying
 * the history.
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
        reached_before INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (app_id, hub_id)
      ) WITHOUT ROWID;
    `);
    this.clocks.clear();
    const rows = cachedStatement(
      db,
      'SELECT app_id, hub_id, offset_seconds, reached_before FROM oauth_install_clocks',
    ).all() as { app_id: number; hub_id: number; offset_seconds: number; reached_before: number }[];
    for (const r of rows) {
      this.clocks.set(r.app_id, r.hub_id, r.offset_seconds * 1000);
      if (r.reached_before > 0) this.clocks.reachedBeforeReset(r.app_id, r.hub_id, r.reached_before);
    }
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
      case InstallClockEventType.InstallClockReset: {
        // The row stays (offset 0) with the time the install had reached: its tokens issued ahead outlive the reset.
        const reached = e.data.resetAt + e.data.offsetSeconds * 1000;
        cachedStatement(
          db,
          `INSERT INTO oauth_install_clocks (app_id, hub_id, offset_seconds, reached_before) VALUES (?, ?, 0, ?)
           ON CONFLICT (app_id, hub_id) DO UPDATE SET offset_seconds = 0, reached_before = max(reached_before, excluded.reached_before)`,
        ).run(e.data.appId, e.data.hubId, reached);
        this.clocks.remove(e.data.appId, e.data.hubId);
        this.clocks.reachedBeforeReset(e.data.appId, e.data.hubId, reached);
        break;
      }
    }
  }
}
