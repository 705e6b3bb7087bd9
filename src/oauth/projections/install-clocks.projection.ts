import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { InstallClocks, RESET_MEMORY_MS } from '../../platform/clock';
import { InstallClockEventType, type InstallClockEvent } from '../domain/install-clock';

/**
 * Feeds the in-memory InstallClocks from the checkpointed feed, and keeps the clocks in one small
 * table (one row per install that ever had one: its offset, its era — resets so far — and the
 * offset all its resets dropped) plus the resets of the last RESET_MEMORY_MS, so that a restart
 * reloads them instead of replaying the history. Version 2 counts the eras (issue 41, item 4): the
 * history is applied again from zero.
 */
@Injectable()
export class InstallClocksProjection implements Projection<InstallClockEvent> {
  readonly name = 'oauth-install-clocks';
  readonly version = 2;
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
      CREATE TABLE IF NOT EXISTS oauth_install_clock_resets (
        app_id            INTEGER NOT NULL,
        hub_id            INTEGER NOT NULL,
        epoch             INTEGER NOT NULL,
        reset_at          INTEGER NOT NULL,
        dropped_before_ms INTEGER NOT NULL,
        PRIMARY KEY (app_id, hub_id, epoch)
      ) WITHOUT ROWID;
    `);
    // Version 1's table had no eras.
    const columns = new Set(
      (db.prepare('PRAGMA table_info(oauth_install_clocks)').all() as { name: string }[]).map((c) => c.name),
    );
    if (!columns.has('epoch')) db.exec('ALTER TABLE oauth_install_clocks ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0');
    if (!columns.has('dropped_ms')) {
      db.exec('ALTER TABLE oauth_install_clocks ADD COLUMN dropped_ms INTEGER NOT NULL DEFAULT 0');
    }
    this.clocks.clear();
    const rows = cachedStatement(
      db,
      'SELECT app_id, hub_id, offset_seconds, reached_before FROM oauth_install_clocks',
    ).all() as { app_id: number; hub_id: number; offset_seconds: number; reached_before: number }[];
    for (const r of rows) {
      this.clocks.set(r.app_id, r.hub_id, r.offset_seconds * 1000);
      if (r.reached_before > 0) this.clocks.reachedBeforeReset(r.app_id, r.hub_id, r.reached_before);
    }
    const eras = cachedStatement(
      db,
      `SELECT c.app_id, c.hub_id, c.epoch, c.dropped_ms, r.epoch AS reset_epoch, r.reset_at, r.dropped_before_ms
       FROM oauth_install_clocks c LEFT JOIN oauth_install_clock_resets r ON r.app_id = c.app_id AND r.hub_id = c.hub_id
       WHERE c.epoch > 0 ORDER BY c.app_id, c.hub_id, r.epoch`,
    ).all() as {
      app_id: number;
      hub_id: number;
      epoch: number;
      dropped_ms: number;
      reset_epoch: number | null;
      reset_at: number | null;
      dropped_before_ms: number | null;
    }[];
    for (const r of eras) {
      this.clocks.enterEra(r.app_id, r.hub_id, r.epoch, r.dropped_ms);
      if (r.reset_epoch !== null) {
        this.clocks.rememberReset(r.app_id, r.hub_id, r.reset_epoch, r.reset_at!, r.dropped_before_ms!);
      }
    }
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM oauth_install_clocks; DELETE FROM oauth_install_clock_resets;');
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
        const { appId, hubId, resetAt } = e.data;
        // The row stays (offset 0) with the time the install had reached, and the install enters its next era.
        const reached = resetAt + e.data.offsetSeconds * 1000;
        const before = cachedStatement(
          db,
          'SELECT epoch, dropped_ms FROM oauth_install_clocks WHERE app_id = ? AND hub_id = ?',
        ).get(appId, hubId) as { epoch: number; dropped_ms: number } | undefined;
        const epoch = (before?.epoch ?? 0) + 1;
        const droppedBeforeMs = before?.dropped_ms ?? 0;
        const droppedTotalMs = droppedBeforeMs + e.data.offsetSeconds * 1000;
        cachedStatement(
          db,
          `INSERT INTO oauth_install_clocks (app_id, hub_id, offset_seconds, reached_before, epoch, dropped_ms) VALUES (?, ?, 0, ?, ?, ?)
           ON CONFLICT (app_id, hub_id) DO UPDATE SET offset_seconds = 0, reached_before = max(reached_before, excluded.reached_before),
             epoch = excluded.epoch, dropped_ms = excluded.dropped_ms`,
        ).run(appId, hubId, reached, epoch, droppedTotalMs);
        cachedStatement(
          db,
          `INSERT OR REPLACE INTO oauth_install_clock_resets (app_id, hub_id, epoch, reset_at, dropped_before_ms)
           VALUES (?, ?, ?, ?, ?)`,
        ).run(appId, hubId, epoch, resetAt, droppedBeforeMs);
        cachedStatement(
          db,
          'DELETE FROM oauth_install_clock_resets WHERE app_id = ? AND hub_id = ? AND reset_at <= ?',
        ).run(appId, hubId, resetAt - RESET_MEMORY_MS);
        this.clocks.remove(appId, hubId);
        this.clocks.reachedBeforeReset(appId, hubId, reached);
        this.clocks.resetInto(appId, hubId, { epoch, resetAt, droppedBeforeMs, droppedTotalMs });
        break;
      }
    }
  }
}
