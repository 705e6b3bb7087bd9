import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { SearchLags } from '../application/search-lag';
import { type SearchEvent, SearchEventType } from '../domain/search-lag';

/**
 * Feeds the in-memory SearchLags from the checkpointed feed, and keeps the lags in force in one small
 * table so that a restart reloads them instead of replaying the history.
 */
@Injectable()
export class SearchLagProjection implements Projection<SearchEvent> {
  readonly name = 'crm-search-lags';
  readonly version = 1;
  readonly handles: readonly SearchEvent['type'][] = [SearchEventType.SearchLagSet];

  constructor(private readonly lags: SearchLags) {}

  setup(db: Database.Database): void {
    db.exec(`CREATE TABLE IF NOT EXISTS search_lags (hub_id INTEGER PRIMARY KEY, lag_ms INTEGER NOT NULL)`);
    this.lags.clear();
    const rows = cachedStatement(db, 'SELECT hub_id, lag_ms FROM search_lags').all() as {
      hub_id: number;
      lag_ms: number;
    }[];
    for (const r of rows) this.lags.set(r.hub_id, r.lag_ms);
  }

  reset(db: Database.Database): void {
    db.exec('DELETE FROM search_lags');
    this.lags.clear();
  }

  apply(e: Recorded<SearchEvent>, db: Database.Database): void {
    const { hubId, lagMs } = e.data;
    if (lagMs === 0) cachedStatement(db, 'DELETE FROM search_lags WHERE hub_id = ?').run(hubId);
    else cachedStatement(db, 'INSERT OR REPLACE INTO search_lags (hub_id, lag_ms) VALUES (?, ?)').run(hubId, lagMs);
    this.lags.set(hubId, lagMs);
  }
}
