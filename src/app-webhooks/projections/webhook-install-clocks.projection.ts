import type Database from 'better-sqlite3';
import { InstallClockEventType, type InstallClockEvent } from '../../oauth/oauth.events';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';

export const WEBHOOK_INSTALL_CLOCKS_PROJECTION = 'webhooks-install-clocks';

/**
 * How far each install's clock runs ahead (the install-clock control, docs/testing-your-app.md), on
 * the delivery thread: retries come due on the install's time, and reading the offset here, in the
 * same feed order as the outbox, spares the API's event loop a question per request (issue 42). A
 * table of the installs whose clock is ahead, and the same in memory for the dispatcher's reads.
 */
export class WebhookInstallClocksProjection implements Projection<InstallClockEvent> {
  readonly name = WEBHOOK_INSTALL_CLOCKS_PROJECTION;
  readonly version = 1;
  readonly handles: readonly InstallClockEvent['type'][] = [
    InstallClockEventType.InstallClockAdvanced,
    InstallClockEventType.InstallClockReset,
  ];
  /** `${appId}:${hubId}` -> offset in ms, for the installs ahead of real time only. */
  private readonly offsets = new Map<string, number>();

  /** The install's offset (0: on the service's time). */
  offsetMs(appId: number, hubId: number): number {
    return this.offsets.size === 0 ? 0 : (this.offsets.get(`${appId}:${hubId}`) ?? 0);
  }

  setup(db: Database.Database): void {
    db.exec(`CREATE TABLE IF NOT EXISTS wh_install_clocks (
      app_id INTEGER NOT NULL, hub_id INTEGER NOT NULL, offset_ms INTEGER NOT NULL,
      PRIMARY KEY (app_id, hub_id)) WITHOUT ROWID;`);
    this.offsets.clear();
    const rows = db.prepare('SELECT app_id, hub_id, offset_ms FROM wh_install_clocks').all() as {
      app_id: number;
      hub_id: number;
      offset_ms: number;
    }[];
    for (const r of rows) this.offsets.set(`${r.app_id}:${r.hub_id}`, r.offset_ms);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM wh_install_clocks');
    this.offsets.clear();
  }

  apply(event: Recorded<InstallClockEvent>, db: Database.Database): void {
    const { appId, hubId } = event.data;
    const offsetMs = event.type === InstallClockEventType.InstallClockAdvanced ? event.data.offsetSeconds * 1000 : 0;
    const key = `${appId}:${hubId}`;
    if (offsetMs > 0) {
      cachedStatement(
        db,
        `INSERT INTO wh_install_clocks (app_id, hub_id, offset_ms) VALUES (?, ?, ?)
         ON CONFLICT (app_id, hub_id) DO UPDATE SET offset_ms = excluded.offset_ms`,
      ).run(appId, hubId, offsetMs);
      this.offsets.set(key, offsetMs);
    } else {
      cachedStatement(db, 'DELETE FROM wh_install_clocks WHERE app_id = ? AND hub_id = ?').run(appId, hubId);
      this.offsets.delete(key);
    }
  }
}
