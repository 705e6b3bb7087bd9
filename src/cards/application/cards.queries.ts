import { Inject, Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../platform/projections/read-model-database';
import { createCardsTables, legacyCardPlacesSql } from '../projections/cards-tables';
import type { LegacyCardDefinition } from '../domain/card-events';
import { CRM_VIEWS, HELPDESK_VIEW, type CardObjectType, type CrmView } from '../domain/card-views';
import { cachedStatement } from '../../platform/projections/statement-cache';

export interface LegacyCardAuditEntry {
  actionType: 'CREATE' | 'UPDATE' | 'DELETE';
  appId: number;
  userId: number;
  changedAt: number;
}

export interface LegacyCardRecord {
  cardId: string;
  appId: number;
  definition: LegacyCardDefinition;
  objectTypes: CardObjectType[];
  createdAt: number;
  updatedAt: number;
  audit: LegacyCardAuditEntry[];
}

export interface AppCardRecord {
  id: string;
  appId: number;
  title: string;
  objectTypes: CardObjectType[];
  createdAt: number;
}

export interface MigrationRecord {
  legacyCardId: string;
  appId: number;
  appCardId: string;
  helpdeskAppCardId: string | null;
  allowDuplicateAppCardIds: boolean;
  startedAt: number;
  endedAt: number | null;
  /** Accounts to migrate: those holding the legacy card at the start, minus those that uninstalled before their turn. */
  totalPortalCount: number;
  migratedPortalCount: number;
  remainingPortalCount: number;
}

export interface ViewCard {
  position: number;
  cardType: 'LEGACY_CRM_CARD' | 'APP_CARD';
  cardId: string;
  appId: number;
  title: string | null;
}

export interface AccountView {
  view: CrmView;
  viewType: 'CRM_RECORD' | 'HELP_DESK';
  objectType: CardObjectType | null;
  cards: ViewCard[];
}

interface LegacyRow {
  card_id: string;
  app_id: number;
  definition: string;
  object_types: string;
  created_at: number;
  updated_at: number;
}
interface AppRow {
  card_id: string;
  app_id: number;
  title: string;
  object_types: string;
  created_at: number;
}
interface MigrationRow {
  legacy_card_id: string;
  app_id: number;
  app_card_id: string;
  helpdesk_app_card_id: string | null;
  allow_duplicates: number;
  started_at: number;
  ended_at: number | null;
  start_count: number;
  migrated_count: number;
  left_count: number;
}

const ORDER_BY_ID = 'ORDER BY length(card_id), card_id';

/** Read side of the cards module, served from the `cards` projection. */
@Injectable()
export class CardsQueries {
  private prepared: ReturnType<typeof prepare> | null = null;
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  /** Prepared on first use; the tables are created here too, in case a query runs before projections start. */
  private get s(): ReturnType<typeof prepare> {
    return (this.prepared ??= prepare(this.db));
  }

  legacyCard(cardId: string): LegacyCardRecord | null {
    const row = this.s.legacy.get(cardId) as LegacyRow | undefined;
    return row ? this.toLegacy(row) : null;
  }

  legacyCardsOfApp(appId: number): LegacyCardRecord[] {
    return (this.s.legacyOfApp.all(appId) as LegacyRow[]).map((r) => this.toLegacy(r));
  }

  /** Live legacy cards of an app (the per-app cap counts them). */
  legacyCardCountOfApp(appId: number): number {
    return (this.s.legacyCountOfApp.get(appId) as { n: number }).n;
  }

  appCard(cardId: string): AppCardRecord | null {
    const row = this.s.appCard.get(cardId) as AppRow | undefined;
    return row ? toAppCard(row) : null;
  }

  appCardsOfApp(appId: number): AppCardRecord[] {
    return (this.s.appCardsOfApp.all(appId) as AppRow[]).map(toAppCard);
  }

  /** Highest card id of either kind (they share one id space), or null when there is none. */
  maxCardId(): string | null {
    const row = this.s.maxCardId.get() as { card_id: string } | undefined;
    return row?.card_id ?? null;
  }

  migration(legacyCardId: string): MigrationRecord | null {
    const row = this.s.migration.get(legacyCardId) as MigrationRow | undefined;
    return row ? toMigration(row) : null;
  }

  /** What recorded a migration's start (its MigrationStarted): the worker's events are caused by it. */
  migrationStart(legacyCardId: string): { correlationId: string; eventId: string } | null {
    const row = this.s.migrationStart.get(legacyCardId) as { correlation_id: string; event_id: string } | undefined;
    return row ? { correlationId: row.correlation_id, eventId: row.event_id } : null;
  }

  migrationsOfApp(appId: number): MigrationRecord[] {
    return (this.s.migrationsOfApp.all(appId) as MigrationRow[]).map(toMigration);
  }

  unfinishedMigrations(): MigrationRecord[] {
    return (this.s.unfinished.all() as MigrationRow[]).map(toMigration);
  }

  /** Migrations of other legacy cards whose target (record or help-desk app card) is one of these app cards. */
  migrationsTargeting(appCardIds: string[], exceptLegacyCardId: string): MigrationRecord[] {
    const rows = new Map<string, MigrationRow>();
    for (const id of appCardIds) {
      for (const r of this.s.migrationsTargeting.all(id, id, exceptLegacyCardId) as MigrationRow[])
        rows.set(r.legacy_card_id, r);
    }
    return [...rows.values()].map(toMigration);
  }

  /** A page of accounts still to migrate, in hub id order (memory stays flat whatever the count). */
  pendingPortals(legacyCardId: string, afterHubId: number, limit: number): number[] {
    return (this.s.pendingPortals.all(legacyCardId, afterHubId, limit) as Array<{ hub_id: number }>).map(
      (r) => r.hub_id,
    );
  }

  /** Accounts whose views hold this legacy card now. */
  portalsHoldingLegacyCard(legacyCardId: string): number {
    return (this.s.portalsHolding.get(legacyCardId) as { n: number }).n;
  }

  /** Where the legacy card sits in one account's views (0-based sidebar positions). */
  legacyCardPlaces(hubId: number, legacyCardId: string): Array<{ view: CrmView; position: number }> {
    return this.s.legacyPlaces.all(hubId, legacyCardId) as Array<{ view: CrmView; position: number }>;
  }

  /**
   * `legacyCardPlaces` for every account with afterHubId < hubId <= toHubId at once: the migration
   * worker asks per page of accounts, not per account (one statement instead of thousands).
   */
  legacyCardPlacesOfHubs(
    legacyCardId: string,
    afterHubId: number,
    toHubId: number,
  ): Map<number, Array<{ view: CrmView; position: number }>> {
    const rows = this.s.legacyPlacesOfHubs.all(legacyCardId, afterHubId, toHubId) as Array<{
      hub_id: number;
      view: CrmView;
      position: number;
    }>;
    const byHub = new Map<number, Array<{ view: CrmView; position: number }>>();
    for (const r of rows) {
      let places = byHub.get(r.hub_id);
      if (!places) byHub.set(r.hub_id, (places = []));
      places.push({ view: r.view, position: r.position });
    }
    return byHub;
  }

  isInstalled(appId: number, hubId: number): boolean {
    return this.s.installed.get(appId, hubId) !== undefined;
  }

  /** Every CRM view of the account, in sidebar order, cards' titles included. */
  accountViews(hubId: number): AccountView[] {
    const rows = this.s.viewItems.all(hubId) as Array<{
      view: CrmView;
      kind: 'legacy' | 'app';
      card_id: string;
      app_id: number;
      legacy_definition: string | null;
      app_title: string | null;
    }>;
    return CRM_VIEWS.map((view) => {
      const cards = rows
        .filter((r) => r.view === view)
        .map((r, position): ViewCard => ({
          position,
          cardType: r.kind === 'legacy' ? 'LEGACY_CRM_CARD' : 'APP_CARD',
          cardId: r.card_id,
          appId: r.app_id,
          title: r.kind === 'legacy' ? titleOf(r.legacy_definition) : r.app_title,
        }));
      return {
        view,
        viewType: view === HELPDESK_VIEW ? 'HELP_DESK' : 'CRM_RECORD',
        objectType: view === HELPDESK_VIEW ? 'tickets' : (view as CardObjectType),
        cards,
      };
    });
  }

  private toLegacy(row: LegacyRow): LegacyCardRecord {
    const audit = (
      this.s.audit.all(row.card_id) as Array<{
        action_type: LegacyCardAuditEntry['actionType'];
        app_id: number;
        user_id: number;
        changed_at: number;
      }>
    ).map((a) => ({ actionType: a.action_type, appId: a.app_id, userId: a.user_id, changedAt: a.changed_at }));
    return {
      cardId: row.card_id,
      appId: row.app_id,
      definition: JSON.parse(row.definition) as LegacyCardDefinition,
      objectTypes: JSON.parse(row.object_types) as CardObjectType[],
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      audit,
    };
  }
}

function titleOf(definition: string | null): string | null {
  return definition ? (JSON.parse(definition) as LegacyCardDefinition).title : null;
}

const toAppCard = (r: AppRow): AppCardRecord => ({
  id: r.card_id,
  appId: r.app_id,
  title: r.title,
  objectTypes: JSON.parse(r.object_types) as CardObjectType[],
  createdAt: r.created_at,
});

const toMigration = (r: MigrationRow): MigrationRecord => {
  const total = r.start_count - r.left_count;
  return {
    legacyCardId: r.legacy_card_id,
    appId: r.app_id,
    appCardId: r.app_card_id,
    helpdeskAppCardId: r.helpdesk_app_card_id,
    allowDuplicateAppCardIds: r.allow_duplicates === 1,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    totalPortalCount: total,
    migratedPortalCount: r.migrated_count,
    remainingPortalCount: total - r.migrated_count,
  };
};

function prepare(db: Database.Database) {
  createCardsTables(db);
  return {
    legacy: cachedStatement(db, 'SELECT * FROM cards_legacy WHERE card_id = ? AND deleted_at IS NULL'),
    legacyOfApp: cachedStatement(
      db,
      `SELECT * FROM cards_legacy WHERE app_id = ? AND deleted_at IS NULL ${ORDER_BY_ID}`,
    ),
    legacyCountOfApp: cachedStatement(
      db,
      'SELECT COUNT(*) AS n FROM cards_legacy WHERE app_id = ? AND deleted_at IS NULL',
    ),
    audit: cachedStatement(db, 'SELECT * FROM cards_legacy_audit WHERE card_id = ? ORDER BY revision'),
    appCard: cachedStatement(db, 'SELECT * FROM cards_app WHERE card_id = ?'),
    appCardsOfApp: cachedStatement(db, `SELECT * FROM cards_app WHERE app_id = ? ${ORDER_BY_ID}`),
    maxCardId: cachedStatement(
      db,
      `SELECT card_id FROM (SELECT card_id FROM cards_legacy UNION ALL SELECT card_id FROM cards_app) ORDER BY length(card_id) DESC, card_id DESC LIMIT 1`,
    ),
    migration: cachedStatement(db, 'SELECT * FROM cards_migrations WHERE legacy_card_id = ?'),
    migrationStart: cachedStatement(
      db,
      'SELECT correlation_id, event_id FROM cards_migration_starts WHERE legacy_card_id = ?',
    ),
    migrationsOfApp: cachedStatement(
      db,
      'SELECT * FROM cards_migrations WHERE app_id = ? ORDER BY started_at, legacy_card_id',
    ),
    unfinished: cachedStatement(
      db,
      'SELECT * FROM cards_migrations WHERE ended_at IS NULL ORDER BY started_at, legacy_card_id',
    ),
    migrationsTargeting: cachedStatement(
      db,
      'SELECT * FROM cards_migrations WHERE (app_card_id = ? OR helpdesk_app_card_id = ?) AND legacy_card_id <> ?',
    ),
    pendingPortals: cachedStatement(
      db,
      `SELECT hub_id FROM cards_migration_portals WHERE legacy_card_id = ? AND state = 'pending' AND hub_id > ? ORDER BY hub_id LIMIT ?`,
    ),
    portalsHolding: cachedStatement(
      db,
      `SELECT COUNT(DISTINCT hub_id) AS n FROM cards_view_items WHERE card_id = ? AND kind = 'legacy'`,
    ),
    legacyPlaces: cachedStatement(db, legacyCardPlacesSql('view, position', 'i.hub_id = ? AND p.card_id = ?', 'view')),
    legacyPlacesOfHubs: cachedStatement(
      db,
      legacyCardPlacesSql('hub_id, view, position', 'p.card_id = ? AND i.hub_id > ? AND i.hub_id <= ?', 'hub_id, view'),
    ),
    installed: cachedStatement(db, 'SELECT 1 FROM cards_installs WHERE app_id = ? AND hub_id = ?'),
    viewItems: cachedStatement(
      db,
      `SELECT v.view, v.kind, v.card_id, v.app_id, l.definition AS legacy_definition, a.title AS app_title
       FROM cards_view_items v
       LEFT JOIN cards_legacy l ON v.kind = 'legacy' AND l.card_id = v.card_id
       LEFT JOIN cards_app a ON v.kind = 'app' AND a.card_id = v.card_id
       WHERE v.hub_id = ? ORDER BY v.view, v.slot`,
    ),
  };
}
