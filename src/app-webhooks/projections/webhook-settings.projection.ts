import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import type { WebhooksEvent } from '../domain/webhook-events';
import { applyConfigEvent, CONFIG_EVENT_TYPES, CONFIG_TABLES_DDL, CONFIG_TABLES_RESET } from './webhook-config-tables';

export const WEBHOOK_SETTINGS_PROJECTION = 'webhooks-settings';

/**
 * The apps' webhook settings, subscriptions and re-sealed client secrets on the API's thread: what
 * the settings and subscriptions API answers from. The outbox and its log are the delivery thread's
 * own read model (webhook-outbox.projection.ts, in webhooks-outbox.sqlite).
 */
@Injectable()
export class WebhookSettingsProjection implements Projection<WebhooksEvent> {
  readonly name = WEBHOOK_SETTINGS_PROJECTION;
  readonly version = 1;
  readonly handles: readonly WebhooksEvent['type'][] = CONFIG_EVENT_TYPES;

  setup(db: Database.Database): void {
    // The outbox was in this file until it moved to the delivery thread's: its tables go.
    db.exec(`DROP TABLE IF EXISTS wh_outbox; DROP TABLE IF EXISTS wh_attempts; DROP TABLE IF EXISTS wh_attempt_items;
      DROP TABLE IF EXISTS wh_installs; DELETE FROM projection_checkpoints WHERE name = 'webhooks-outbox';`);
    db.exec(CONFIG_TABLES_DDL);
  }

  reset(db: Database.Database): void {
    db.exec(CONFIG_TABLES_RESET);
  }

  apply(event: Recorded<WebhooksEvent>, db: Database.Database): void {
    applyConfigEvent(event, db);
  }
}
