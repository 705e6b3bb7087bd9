import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { cachedStatement } from '../../platform/projections/statement-cache';

export interface SettingsView {
  targetUrl: string;
  maxConcurrentRequests: number;
  createdAt: number;
  updatedAt: number;
}

export interface SubscriptionView {
  id: number;
  eventType: string;
  propertyName: string | null;
  objectTypeId: string | null;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

/** Reads of the API thread's webhooks read model (projection `webhooks-settings`): settings and subscriptions. */
@Injectable()
export class WebhooksQueries {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  private stmt(sql: string): Database.Statement {
    return cachedStatement(this.db, sql);
  }

  settings(appId: number): SettingsView | null {
    const row = this.stmt('SELECT * FROM wh_settings WHERE app_id = ?').get(appId) as
      { target_url: string; max_concurrent: number; created_at: number; updated_at: number } | undefined;
    if (!row) return null;
    return {
      targetUrl: row.target_url,
      maxConcurrentRequests: row.max_concurrent,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  subscriptions(appId: number): SubscriptionView[] {
    return (
      this.stmt('SELECT * FROM wh_subscriptions WHERE app_id = ? ORDER BY subscription_id').all(
        appId,
      ) as SubscriptionRow[]
    ).map(toSubscription);
  }

  subscription(appId: number, id: number): SubscriptionView | null {
    const row = this.stmt('SELECT * FROM wh_subscriptions WHERE app_id = ? AND subscription_id = ?').get(appId, id) as
      SubscriptionRow | undefined;
    return row ? toSubscription(row) : null;
  }

  /** Apps with webhook settings. */
  configuredAppIds(): number[] {
    return (this.stmt('SELECT app_id FROM wh_settings ORDER BY app_id').all() as { app_id: number }[]).map(
      (r) => r.app_id,
    );
  }

  /** The app's client secret as re-sealed by webhooks, with the hash of the seal it replaces. */
  resealedSecret(appId: number): { sealed: string; replaces: string } | null {
    return (
      (this.stmt('SELECT sealed, replaces FROM wh_resealed_secrets WHERE app_id = ?').get(appId) as
        { sealed: string; replaces: string } | undefined) ?? null
    );
  }
}

interface SubscriptionRow {
  subscription_id: number;
  event_type: string;
  property_name: string | null;
  object_type_id: string | null;
  active: number;
  created_at: number;
  updated_at: number;
}

function toSubscription(r: SubscriptionRow): SubscriptionView {
  return {
    id: r.subscription_id,
    eventType: r.event_type,
    propertyName: r.property_name,
    objectTypeId: r.object_type_id,
    active: r.active === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
