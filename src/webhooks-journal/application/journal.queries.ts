import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';
import type { FilterCondition, JournalSubscription } from '../domain/journal-events';

export interface SubscriptionView extends JournalSubscription {
  id: number;
  appId: number;
  createdAt: number;
}

export interface FilterView {
  id: number;
  subscriptionId: number;
  conditions: FilterCondition[];
  createdAt: number;
}

export interface SnapshotStatusView {
  id: string;
  initiatedAt: number;
  completedAt: number | null;
  status: string;
  errorCode: string | null;
  message: string | null;
}

export interface EntryRow {
  offset: string;
  hubId: number;
  position: number;
  occurredAt: number;
  body: string;
}

/** Reads of the webhooks-journal read model. */
@Injectable()
export class JournalQueries {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  subscriptions(appId: number): SubscriptionView[] {
    const rows = cachedStatement(
      this.db,
      'SELECT subscription_id, body, created_at FROM jr_subscriptions WHERE app_id = ? ORDER BY subscription_id',
    ).all(appId) as { subscription_id: number; body: string; created_at: number }[];
    return rows.map((r) => ({
      ...(JSON.parse(r.body) as JournalSubscription),
      id: r.subscription_id,
      appId,
      createdAt: r.created_at,
    }));
  }

  subscription(appId: number, id: number): SubscriptionView | null {
    return this.subscriptions(appId).find((s) => s.id === id) ?? null;
  }

  filter(appId: number, filterId: number): FilterView | null {
    const row = cachedStatement(
      this.db,
      'SELECT filter_id, subscription_id, conditions, created_at FROM jr_filters WHERE app_id = ? AND filter_id = ?',
    ).get(appId, filterId) as FilterRow | undefined;
    return row ? filterView(row) : null;
  }

  filtersOf(appId: number, subscriptionId: number): FilterView[] {
    const rows = cachedStatement(
      this.db,
      'SELECT filter_id, subscription_id, conditions, created_at FROM jr_filters WHERE app_id = ? AND subscription_id = ? ORDER BY filter_id',
    ).all(appId, subscriptionId) as FilterRow[];
    return rows.map(filterView);
  }

  snapshotStatus(appId: number, id: string): SnapshotStatusView | null {
    const row = cachedStatement(
      this.db,
      'SELECT status_id, initiated_at, completed_at, status, error_code, message FROM jr_snapshots WHERE status_id = ? AND app_id = ?',
    ).get(id, appId) as
      | {
          status_id: string;
          initiated_at: number;
          completed_at: number | null;
          status: string;
          error_code: string | null;
          message: string | null;
        }
      | undefined;
    if (!row) return null;
    return {
      id: row.status_id,
      initiatedAt: row.initiated_at,
      completedAt: row.completed_at,
      status: row.status,
      errorCode: row.error_code,
      message: row.message,
    };
  }

  entry(appId: number, offset: string): EntryRow | null {
    const row = cachedStatement(
      this.db,
      'SELECT offset, hub_id AS hubId, position, occurred_at AS occurredAt, body FROM jr_entries WHERE offset = ? AND app_id = ?',
    ).get(offset, appId) as EntryRow | undefined;
    return row ?? null;
  }

  /**
   * The app's entries in history order (newest first when `descending`), of one account when
   * `hubId` is given, after (or before) `position`: a lazy iterator, so a reader stops at what it needs.
   */
  *entries(
    appId: number,
    hubId: number | null,
    from: { after?: number; before?: number },
    descending = false,
  ): Generator<EntryRow> {
    const hub = hubId === null ? '' : 'AND hub_id = ?';
    const bound = descending ? 'position < ?' : 'position > ?';
    const sql = `SELECT offset, hub_id AS hubId, position, occurred_at AS occurredAt, body FROM jr_entries
      WHERE app_id = ? ${hub} AND ${bound} ORDER BY position ${descending ? 'DESC' : 'ASC'}`;
    const start = descending ? (from.before ?? Number.MAX_SAFE_INTEGER) : (from.after ?? 0);
    const params = hubId === null ? [appId, start] : [appId, hubId, start];
    // A fresh statement: an iterating statement cannot be shared with another open iteration.
    yield* this.db.prepare(sql).iterate(...params) as IterableIterator<EntryRow>;
  }
}

interface FilterRow {
  filter_id: number;
  subscription_id: number;
  conditions: string;
  created_at: number;
}

const filterView = (r: FilterRow): FilterView => ({
  id: r.filter_id,
  subscriptionId: r.subscription_id,
  conditions: JSON.parse(r.conditions) as FilterCondition[],
  createdAt: r.created_at,
});
