import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import { cachedStatement } from '../../platform/projections/statement-cache';
import { subscribedObjectTypeId } from '../domain/subscription-types';
import { WebhooksEventType, type WebhooksEvent } from '../domain/webhook-events';

/**
 * The apps' webhook settings, subscriptions and re-sealed client secrets as tables. Two read models
 * keep them, each in its own file: `webhooks-settings` on the API's thread (the settings and
 * subscriptions API answers from it) and `webhooks-outbox` on the delivery thread (who hears of a
 * change, and where to send it). One definition, so the two cannot drift.
 */
export const CONFIG_TABLES_DDL = `
  CREATE TABLE IF NOT EXISTS wh_settings (
    app_id INTEGER PRIMARY KEY, target_url TEXT NOT NULL, max_concurrent INTEGER NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS wh_subscriptions (
    app_id INTEGER NOT NULL, subscription_id INTEGER NOT NULL, event_type TEXT NOT NULL,
    property_name TEXT, object_type_id TEXT, followed_type TEXT, active INTEGER NOT NULL,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, subscription_id));
  CREATE INDEX IF NOT EXISTS wh_subscriptions_followed ON wh_subscriptions (followed_type, active);
  CREATE TABLE IF NOT EXISTS wh_resealed_secrets (
    app_id INTEGER PRIMARY KEY, sealed TEXT NOT NULL, replaces TEXT NOT NULL);
`;

export const CONFIG_TABLES_RESET =
  'DELETE FROM wh_settings; DELETE FROM wh_subscriptions; DELETE FROM wh_resealed_secrets;';

/** The events the config tables follow. */
export const CONFIG_EVENT_TYPES = [
  WebhooksEventType.SettingsConfigured,
  WebhooksEventType.SettingsCleared,
  WebhooksEventType.SubscriptionCreated,
  WebhooksEventType.SubscriptionActivationChanged,
  WebhooksEventType.SubscriptionDeleted,
  WebhooksEventType.SigningSecretResealed,
] as const;

/** Applies a settings, subscription or re-seal event; false for any other event. */
export function applyConfigEvent(event: Recorded<WebhooksEvent>, db: Database.Database): boolean {
  const run = (sql: string, ...params: unknown[]) => cachedStatement(db, sql).run(...params);
  switch (event.type) {
    case WebhooksEventType.SettingsConfigured: {
      const d = event.data;
      run(
        `INSERT INTO wh_settings VALUES (?, ?, ?, ?, ?) ON CONFLICT (app_id) DO UPDATE SET
           target_url = excluded.target_url, max_concurrent = excluded.max_concurrent, updated_at = excluded.updated_at`,
        d.appId,
        d.targetUrl,
        d.maxConcurrentRequests,
        d.configuredAt,
        d.configuredAt,
      );
      return true;
    }
    case WebhooksEventType.SettingsCleared:
      run('DELETE FROM wh_settings WHERE app_id = ?', event.data.appId);
      return true;
    case WebhooksEventType.SubscriptionCreated: {
      const d = event.data;
      run(
        'INSERT OR REPLACE INTO wh_subscriptions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        d.appId,
        d.subscriptionId,
        d.eventType,
        d.propertyName,
        d.objectTypeId,
        subscribedObjectTypeId(d.eventType, d.objectTypeId),
        d.active ? 1 : 0,
        d.createdAt,
        d.createdAt,
      );
      return true;
    }
    case WebhooksEventType.SubscriptionActivationChanged: {
      const d = event.data;
      run(
        'UPDATE wh_subscriptions SET active = ?, updated_at = ? WHERE app_id = ? AND subscription_id = ?',
        d.active ? 1 : 0,
        d.updatedAt,
        d.appId,
        d.subscriptionId,
      );
      return true;
    }
    case WebhooksEventType.SubscriptionDeleted:
      run(
        'DELETE FROM wh_subscriptions WHERE app_id = ? AND subscription_id = ?',
        event.data.appId,
        event.data.subscriptionId,
      );
      return true;
    case WebhooksEventType.SigningSecretResealed:
      run(
        'INSERT OR REPLACE INTO wh_resealed_secrets VALUES (?, ?, ?)',
        event.data.appId,
        event.data.sealed,
        event.data.replaces,
      );
      return true;
    default:
      return false;
  }
}
