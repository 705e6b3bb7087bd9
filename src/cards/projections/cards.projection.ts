import { Injectable } from '@nestjs/common';
import type Database from 'better-sqlite3';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Projection } from '../../platform/projections/projection';
import {
  CardsEventType,
  type AppCardCreated,
  type LegacyCardCreated,
  type LegacyCardDeleted,
  type LegacyCardUpdated,
  type MigrationCompleted,
  type MigrationStarted,
  type PortalCardMigrated,
} from '../domain/card-events';
import {
  HELPDESK_VIEW,
  objectTypesOf,
  viewsForObjectTypes,
  type CardObjectType,
  type CrmView,
} from '../domain/card-views';
import { createCardsTables } from './cards-tables';
import { OAuthEventType, type AppInstalled, type AppUninstalled } from '../../oauth/oauth.events';
import { cachedStatement } from '../../platform/projections/statement-cache';

/** Everything the cards read models apply: the cards module's own events and the OAuth module's installs. */
export type CardsProjectionEvent =
  | LegacyCardCreated
  | LegacyCardUpdated
  | LegacyCardDeleted
  | AppCardCreated
  | AppInstalled
  | AppUninstalled
  | MigrationStarted
  | PortalCardMigrated
  | MigrationCompleted;

/**
 * The cards read models, one projection so that views, cards and migration counts always agree
 * at the same feed position:
 *  - cards_legacy / cards_legacy_audit / cards_app: the card definitions and their audit trail;
 *  - cards_installs + cards_legacy_places + cards_app_places: which accounts installed which app,
 *    where each legacy card shows, and the app cards placed in one account; together (the
 *    `cards_view_items` SQL view) they are every account's CRM record views, a sidebar of cards
 *    per view ordered by the feed position that placed each card, which survives removals, so an
 *    app card can take a legacy card's exact place. A legacy card is stored once, not once per
 *    account that installed its app: its create, patch and delete cost the same for 1 install as
 *    for 100,000;
 *  - cards_migrations + cards_migration_portals: the migration-counts read model. The set of
 *    accounts to migrate is fixed when MigrationStarted is applied, in feed order, so the counts
 *    stay exact whatever races the start (installs, uninstalls, a restarted worker);
 *  - cards_migration_starts: the correlation and event id of each MigrationStarted, so the worker's
 *    events name their cause even after a restart.
 */
@Injectable()
export class CardsProjection implements Projection<CardsProjectionEvent> {
  readonly handles: readonly CardsProjectionEvent['type'][] = [
    CardsEventType.LegacyCardCreated,
    CardsEventType.LegacyCardUpdated,
    CardsEventType.LegacyCardDeleted,
    CardsEventType.AppCardCreated,
    OAuthEventType.AppInstalled,
    OAuthEventType.AppUninstalled,
    CardsEventType.MigrationStarted,
    CardsEventType.PortalCardMigrated,
    CardsEventType.MigrationCompleted,
  ];
  readonly name = 'cards';
  /**
   * 2: cards_migration_starts (a rebuild fills it from the history).
   * 3: legacy cards stored once per card, not per installed account (cards_legacy_places).
   */
  readonly version = 3;
  private statements = new WeakMap<Database.Database, Statements>();

  setup(db: Database.Database): void {
    createCardsTables(db);
  }

  reset(db: Database.Database): void {
    this.statements.get(db)?.migrations.clear();
    db.exec(`
      DELETE FROM cards_legacy; DELETE FROM cards_legacy_audit; DELETE FROM cards_app; DELETE FROM cards_installs;
      DELETE FROM cards_legacy_places; DELETE FROM cards_app_places; DELETE FROM cards_migrations; DELETE FROM cards_migration_portals;
      DELETE FROM cards_migration_starts;
    `);
  }

  apply(event: Recorded<CardsProjectionEvent>, db: Database.Database): void {
    const s = this.statementsFor(db);
    switch (event.type) {
      case CardsEventType.LegacyCardCreated:
        return this.legacyCardCreated(s, event);
      case CardsEventType.LegacyCardUpdated:
        return this.legacyCardUpdated(s, event);
      case CardsEventType.LegacyCardDeleted:
        return this.legacyCardDeleted(s, event);
      case CardsEventType.AppCardCreated: {
        const d = event.data;
        s.insertAppCard.run(d.appCardId, d.appId, d.title, JSON.stringify(d.objectTypes), d.createdAt);
        return;
      }
      case OAuthEventType.AppInstalled:
        return this.appInstalled(s, event.data, event.position);
      case OAuthEventType.AppUninstalled:
        return this.appUninstalled(s, event.data);
      case CardsEventType.MigrationStarted:
        return this.migrationStarted(s, event);
      case CardsEventType.PortalCardMigrated:
        return this.portalCardMigrated(s, event.data);
      case CardsEventType.MigrationCompleted:
        s.completeMigration.run(event.data.endedAt, event.data.legacyCardId);
        return;
    }
  }

  private legacyCardCreated(s: Statements, event: Recorded<LegacyCardCreated>): void {
    const d = event.data;
    const objectTypes = objectTypesOf(d.definition);
    s.insertLegacy.run(
      d.cardId,
      d.appId,
      JSON.stringify(d.definition),
      JSON.stringify(objectTypes),
      d.createdAt,
      d.createdAt,
    );
    s.insertAudit.run(d.cardId, event.revision, 'CREATE', d.appId, d.userId, d.createdAt);
    // A new card reaches every account that already installed the app, at the end of each view:
    // one row per view, read through each install (never one row per account).
    for (const view of viewsForObjectTypes(objectTypes)) s.placeLegacy.run(d.cardId, view, d.appId, event.position);
  }

  private legacyCardUpdated(s: Statements, event: Recorded<LegacyCardUpdated>): void {
    const d = event.data;
    const before = s.getLegacy.get(d.cardId) as { object_types: string } | undefined;
    if (!before) return;
    const oldViews = viewsForObjectTypes(JSON.parse(before.object_types) as CardObjectType[]);
    const objectTypes = objectTypesOf(d.definition);
    const newViews = viewsForObjectTypes(objectTypes);
    s.updateLegacy.run(JSON.stringify(d.definition), JSON.stringify(objectTypes), d.updatedAt, d.cardId);
    s.insertAudit.run(d.cardId, event.revision, 'UPDATE', d.appId, d.userId, d.updatedAt);
    for (const view of oldViews) if (!newViews.includes(view)) s.removeLegacyFromView.run(d.cardId, view);
    // Once a migration started the app card owns the card's places; the legacy card spreads no further.
    if (s.getMigration.get(d.cardId)) return;
    for (const view of newViews) {
      if (!oldViews.includes(view)) s.placeLegacy.run(d.cardId, view, d.appId, event.position);
    }
  }

  private legacyCardDeleted(s: Statements, event: Recorded<LegacyCardDeleted>): void {
    const d = event.data;
    s.deleteLegacy.run(d.deletedAt, d.deletedAt, d.cardId);
    s.insertAudit.run(d.cardId, event.revision, 'DELETE', d.appId, d.userId, d.deletedAt);
    s.removeLegacyEverywhere.run(d.cardId);
  }

  private appInstalled(s: Statements, d: AppInstalled['data'], position: number): void {
    // Re-authorizing an installed app must not place its cards twice. The install's position puts
    // the app's existing legacy cards at the end of each view, in card id order (read through it).
    if (s.insertInstall.run(d.appId, d.hubId, d.installedAt, position).changes === 0) return;
    const cards = s.liveLegacyOfApp.all(d.appId) as Array<{ card_id: string; object_types: string }>;
    for (const card of cards) {
      const migration = s.getMigration.get(card.card_id) as MigrationRow | undefined;
      if (!migration) continue;
      // Installed after the migration started: the account gets the app card directly, in the
      // place the legacy card would have had.
      for (const view of viewsForObjectTypes(JSON.parse(card.object_types) as CardObjectType[])) {
        const target = targetFor(migration, view);
        if (!s.appCardInView.get(d.hubId, view, target))
          s.placeAppCard.run(d.hubId, view, position, card.card_id, target, d.appId);
      }
    }
  }

  private appUninstalled(s: Statements, d: AppUninstalled['data']): void {
    s.deleteInstall.run(d.appId, d.hubId);
    s.removeAppFromAccount.run(d.hubId, d.appId);
    // Accounts not yet migrated leave the migration's count; migrated ones stay counted.
    const pending = s.pendingMigrationsOfHub.all(d.hubId, d.appId) as Array<{ legacy_card_id: string }>;
    for (const p of pending) {
      s.setPortalState.run('left', p.legacy_card_id, d.hubId);
      s.countLeft.run(p.legacy_card_id);
    }
  }

  private migrationStarted(s: Statements, event: Recorded<MigrationStarted>): void {
    const d = event.data;
    if (s.getMigration.get(d.legacyCardId)) return;
    s.insertMigrationStart.run(d.legacyCardId, event.metadata.correlationId, event.metadata.eventId);
    const inserted = s.snapshotPortals.run(d.legacyCardId, d.legacyCardId).changes;
    // From now on the legacy card shows only in the accounts still pending in its migration.
    s.markLegacyMigrating.run(d.legacyCardId);
    s.insertMigration.run(
      d.legacyCardId,
      d.appId,
      d.appCardId,
      d.helpdeskAppCardId ?? null,
      d.allowDuplicateAppCardIds ? 1 : 0,
      d.startedAt,
      inserted,
    );
  }

  private portalCardMigrated(s: Statements, d: PortalCardMigrated['data']): void {
    // One statement claims the account: an account that uninstalled meanwhile (or was never part
    // of the migration) is not pending and keeps its views as they are.
    if (s.claimPortal.run(d.legacyCardId, d.hubId).changes === 0) return;
    s.countMigrated.run(d.legacyCardId);
    const migration = this.migrationOf(s, d.legacyCardId)!;
    // The account no longer pending, its legacy card no longer shows there: the app card takes
    // its place, stored for this account alone.
    const places = s.legacyPlacesInAccount.all(d.hubId, d.legacyCardId) as Array<{
      view: CrmView;
      placed_at: number;
      app_id: number;
    }>;
    for (const place of places) {
      const target = targetFor(migration, place.view);
      // Two legacy cards consolidated into one app card: the app card keeps the first place only.
      if (!s.appCardInView.get(d.hubId, place.view, target))
        s.placeAppCard.run(d.hubId, place.view, place.placed_at, d.legacyCardId, target, place.app_id);
    }
  }

  /** A migration's target cards never change once it started: remembered per database. */
  private migrationOf(s: Statements, legacyCardId: string): MigrationRow | undefined {
    let m = s.migrations.get(legacyCardId);
    if (!m) {
      m = s.getMigration.get(legacyCardId) as MigrationRow | undefined;
      if (m) s.migrations.set(legacyCardId, m);
    }
    return m;
  }

  private statementsFor(db: Database.Database): Statements {
    let s = this.statements.get(db);
    if (!s) {
      s = prepare(db);
      this.statements.set(db, s);
    }
    return s;
  }
}

interface MigrationRow {
  app_card_id: string;
  helpdesk_app_card_id: string | null;
}

const targetFor = (m: MigrationRow, view: CrmView): string =>
  view === HELPDESK_VIEW ? (m.helpdesk_app_card_id ?? m.app_card_id) : m.app_card_id;

function prepare(db: Database.Database) {
  return {
    insertLegacy: cachedStatement(
      db,
      `INSERT INTO cards_legacy (card_id, app_id, definition, object_types, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    getLegacy: cachedStatement(db, 'SELECT object_types FROM cards_legacy WHERE card_id = ? AND deleted_at IS NULL'),
    updateLegacy: cachedStatement(
      db,
      'UPDATE cards_legacy SET definition = ?, object_types = ?, updated_at = ? WHERE card_id = ?',
    ),
    deleteLegacy: cachedStatement(db, 'UPDATE cards_legacy SET deleted_at = ?, updated_at = ? WHERE card_id = ?'),
    liveLegacyOfApp: cachedStatement(
      db,
      'SELECT card_id, object_types FROM cards_legacy WHERE app_id = ? AND deleted_at IS NULL ORDER BY length(card_id), card_id',
    ),
    insertAudit: cachedStatement(
      db,
      `INSERT OR IGNORE INTO cards_legacy_audit (card_id, revision, action_type, app_id, user_id, changed_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    insertAppCard: cachedStatement(
      db,
      'INSERT OR IGNORE INTO cards_app (card_id, app_id, title, object_types, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    insertInstall: cachedStatement(
      db,
      'INSERT OR IGNORE INTO cards_installs (app_id, hub_id, installed_at, placed_at) VALUES (?, ?, ?, ?)',
    ),
    deleteInstall: cachedStatement(db, 'DELETE FROM cards_installs WHERE app_id = ? AND hub_id = ?'),
    placeLegacy: cachedStatement(
      db,
      'INSERT OR IGNORE INTO cards_legacy_places (card_id, view, app_id, placed_at) VALUES (?, ?, ?, ?)',
    ),
    placeAppCard: cachedStatement(
      db,
      'INSERT INTO cards_app_places (hub_id, view, placed_at, place_card_id, card_id, app_id) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    appCardInView: cachedStatement(db, 'SELECT 1 FROM cards_app_places WHERE hub_id = ? AND view = ? AND card_id = ?'),
    removeLegacyFromView: cachedStatement(db, 'DELETE FROM cards_legacy_places WHERE card_id = ? AND view = ?'),
    removeLegacyEverywhere: cachedStatement(db, 'DELETE FROM cards_legacy_places WHERE card_id = ?'),
    markLegacyMigrating: cachedStatement(db, 'UPDATE cards_legacy_places SET migrating = 1 WHERE card_id = ?'),
    removeAppFromAccount: cachedStatement(db, 'DELETE FROM cards_app_places WHERE hub_id = ? AND app_id = ?'),
    /** Where a legacy card sits in an account that installed its app, shown or not (read once the account is claimed). */
    legacyPlacesInAccount: cachedStatement(
      db,
      `SELECT p.view AS view, MAX(i.placed_at, p.placed_at) AS placed_at, p.app_id AS app_id
       FROM cards_legacy_places p JOIN cards_installs i ON i.app_id = p.app_id AND i.hub_id = ?
       WHERE p.card_id = ? ORDER BY p.view`,
    ),
    getMigration: cachedStatement(
      db,
      'SELECT app_card_id, helpdesk_app_card_id FROM cards_migrations WHERE legacy_card_id = ?',
    ),
    insertMigrationStart: cachedStatement(
      db,
      'INSERT OR IGNORE INTO cards_migration_starts (legacy_card_id, correlation_id, event_id) VALUES (?, ?, ?)',
    ),
    insertMigration: cachedStatement(
      db,
      `INSERT INTO cards_migrations (legacy_card_id, app_id, app_card_id, helpdesk_app_card_id, allow_duplicates, started_at, start_count)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    snapshotPortals: cachedStatement(
      db,
      `INSERT OR IGNORE INTO cards_migration_portals (legacy_card_id, hub_id, state)
       SELECT DISTINCT ?, hub_id, 'pending' FROM cards_view_items WHERE card_id = ? AND kind = 'legacy'`,
    ),
    claimPortal: cachedStatement(
      db,
      `UPDATE cards_migration_portals SET state = 'migrated' WHERE legacy_card_id = ? AND hub_id = ? AND state = 'pending'`,
    ),
    setPortalState: cachedStatement(
      db,
      'UPDATE cards_migration_portals SET state = ? WHERE legacy_card_id = ? AND hub_id = ?',
    ),
    countMigrated: cachedStatement(
      db,
      'UPDATE cards_migrations SET migrated_count = migrated_count + 1 WHERE legacy_card_id = ?',
    ),
    countLeft: cachedStatement(db, 'UPDATE cards_migrations SET left_count = left_count + 1 WHERE legacy_card_id = ?'),
    pendingMigrationsOfHub: cachedStatement(
      db,
      `SELECT p.legacy_card_id FROM cards_migration_portals p JOIN cards_migrations m ON m.legacy_card_id = p.legacy_card_id
       WHERE p.hub_id = ? AND p.state = 'pending' AND m.app_id = ?`,
    ),
    completeMigration: cachedStatement(
      db,
      'UPDATE cards_migrations SET ended_at = ? WHERE legacy_card_id = ? AND ended_at IS NULL',
    ),
    migrations: new Map<string, MigrationRow>(),
  };
}

type Statements = ReturnType<typeof prepare>;
