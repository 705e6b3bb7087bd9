import type Database from 'better-sqlite3';

/**
 * A card's place in a sidebar: the feed position of the event that placed it, then (for the cards
 * one install placed together) the legacy card's id in id order (length, then digits). As a row
 * value for comparisons, and as one text with fixed widths (text order is that order) for `slot`.
 */
const PLACE = (placedAt: string, cardId: string) => `(${placedAt}, length(${cardId}), ${cardId})`;
const SLOT = (placedAt: string, cardId: string) => `printf('%020d%03d%s', ${placedAt}, length(${cardId}), ${cardId})`;

/**
 * Whether a legacy card's place (q) shows in an account that installed its app: always until a
 * migration of the card started (`migrating`), then while the account is pending in it.
 */
const SHOWS = (q: string, hubId: string) => `(${q}.migrating = 0
  OR EXISTS (SELECT 1 FROM cards_migration_portals mp
             WHERE mp.legacy_card_id = ${q}.card_id AND mp.hub_id = ${hubId} AND mp.state = 'pending'))`;

/**
 * Where a legacy card shows, with its 0-based position in each view: the cards before it in that
 * account's sidebar are counted from the tables (index lookups per account), not through the
 * `cards_view_items` view, which SQLite would compute whole for each account. `where` filters the
 * legacy card (p) and its installs (i); the row has hub_id, view and position, `select` picks.
 */
export function legacyCardPlacesSql(select: string, where: string, orderBy: string): string {
  const here = PLACE('t.placed_at', 't.card_id');
  return `SELECT ${select} FROM (
    SELECT t.hub_id AS hub_id, t.view AS view,
      (SELECT COUNT(*) FROM cards_app_places a
       WHERE a.hub_id = t.hub_id AND a.view = t.view AND ${PLACE('a.placed_at', 'a.place_card_id')} < ${here})
      + (SELECT COUNT(*) FROM cards_installs j JOIN cards_legacy_places q ON q.app_id = j.app_id AND q.view = t.view
         WHERE j.hub_id = t.hub_id AND j.placed_at <= t.placed_at AND q.placed_at <= t.placed_at
           AND ${PLACE('MAX(j.placed_at, q.placed_at)', 'q.card_id')} < ${here}
           AND ${SHOWS('q', 'j.hub_id')}) AS position
    FROM (
      SELECT i.hub_id AS hub_id, p.view AS view, MAX(i.placed_at, p.placed_at) AS placed_at, p.card_id AS card_id
      FROM cards_legacy_places p JOIN cards_installs i ON i.app_id = p.app_id
      WHERE ${where} AND ${SHOWS('p', 'i.hub_id')}
    ) t
  ) ORDER BY ${orderBy}`;
}

/**
 * Idempotent DDL of every cards read-model table (the queries call it too, so they never race the runner).
 *
 * An account's sidebars (`cards_view_items`) are not stored row by row for legacy cards: a legacy
 * card's views are kept once per card (`cards_legacy_places`) and reach each account that installed
 * its app (`cards_installs`) when read, at the place the later of the two events gave it. So creating,
 * patching or deleting a legacy card writes a few rows whatever the number of installs (issue 26).
 * Only what one account changes for itself is stored per account: the app cards a migration put in
 * a legacy card's place, or an install placed directly (`cards_app_places`); an account's legacy card
 * stops showing once a migration started (`migrating`) unless that account is still pending in it.
 */
export function createCardsTables(db: Database.Database): void {
  // Until version 3 of the projection every legacy card was stored per account: that table goes
  // (the projection's version bump rebuilds the views from the history).
  const stored = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cards_view_items'").get();
  if (stored) db.exec('DROP TABLE cards_view_items; DROP TABLE IF EXISTS cards_installs;');
  db.exec(`
    CREATE TABLE IF NOT EXISTS cards_legacy (
      card_id      TEXT PRIMARY KEY,
      app_id       INTEGER NOT NULL,
      definition   TEXT NOT NULL,
      object_types TEXT NOT NULL,
      created_at   INTEGER NOT NULL,
      updated_at   INTEGER NOT NULL,
      deleted_at   INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_legacy_by_app ON cards_legacy (app_id);
    CREATE TABLE IF NOT EXISTS cards_legacy_audit (
      card_id     TEXT NOT NULL,
      revision    INTEGER NOT NULL,
      action_type TEXT NOT NULL,
      app_id      INTEGER NOT NULL,
      user_id     INTEGER NOT NULL,
      changed_at  INTEGER NOT NULL,
      PRIMARY KEY (card_id, revision)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS cards_app (
      card_id      TEXT PRIMARY KEY,
      app_id       INTEGER NOT NULL,
      title        TEXT NOT NULL,
      object_types TEXT NOT NULL,
      created_at   INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_app_by_app ON cards_app (app_id);
    CREATE TABLE IF NOT EXISTS cards_installs (
      app_id       INTEGER NOT NULL,
      hub_id       INTEGER NOT NULL,
      installed_at INTEGER NOT NULL,
      placed_at    INTEGER NOT NULL,
      PRIMARY KEY (app_id, hub_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_installs_by_hub ON cards_installs (hub_id, placed_at);
    CREATE TABLE IF NOT EXISTS cards_legacy_places (
      card_id   TEXT NOT NULL,
      view      TEXT NOT NULL,
      app_id    INTEGER NOT NULL,
      placed_at INTEGER NOT NULL,
      migrating INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (card_id, view)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_legacy_places_by_app ON cards_legacy_places (app_id, view, placed_at, migrating);
    CREATE TABLE IF NOT EXISTS cards_app_places (
      hub_id        INTEGER NOT NULL,
      view          TEXT NOT NULL,
      placed_at     INTEGER NOT NULL,
      place_card_id TEXT NOT NULL,
      card_id       TEXT NOT NULL,
      app_id        INTEGER NOT NULL,
      PRIMARY KEY (hub_id, view, placed_at, place_card_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_app_places_by_card ON cards_app_places (card_id, hub_id);
    CREATE TABLE IF NOT EXISTS cards_migrations (
      legacy_card_id       TEXT PRIMARY KEY,
      app_id               INTEGER NOT NULL,
      app_card_id          TEXT NOT NULL,
      helpdesk_app_card_id TEXT,
      allow_duplicates     INTEGER NOT NULL,
      started_at           INTEGER NOT NULL,
      ended_at             INTEGER,
      start_count          INTEGER NOT NULL,
      migrated_count       INTEGER NOT NULL DEFAULT 0,
      left_count           INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_migrations_by_app ON cards_migrations (app_id);
    CREATE TABLE IF NOT EXISTS cards_migration_portals (
      legacy_card_id TEXT NOT NULL,
      hub_id         INTEGER NOT NULL,
      state          TEXT NOT NULL CHECK (state IN ('pending', 'migrated', 'left')),
      PRIMARY KEY (legacy_card_id, hub_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_migration_portals_by_hub ON cards_migration_portals (hub_id, state);
    CREATE TABLE IF NOT EXISTS cards_migration_starts (
      legacy_card_id TEXT PRIMARY KEY,
      correlation_id TEXT NOT NULL,
      event_id       TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE VIEW IF NOT EXISTS cards_view_items AS
      SELECT hub_id, view, ${SLOT('placed_at', 'place_card_id')} AS slot, 'app' AS kind, card_id, app_id
      FROM cards_app_places
      UNION ALL
      SELECT i.hub_id, p.view, ${SLOT('MAX(i.placed_at, p.placed_at)', 'p.card_id')} AS slot, 'legacy' AS kind,
             p.card_id, p.app_id
      FROM cards_installs i JOIN cards_legacy_places p ON p.app_id = i.app_id
      WHERE ${SHOWS('p', 'i.hub_id')};
  `);
}
