import type Database from 'better-sqlite3';

/** Idempotent DDL of every cards read-model table (the queries call it too, so they never race the runner). */
export function createCardsTables(db: Database.Database): void {
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
      PRIMARY KEY (app_id, hub_id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS cards_view_items (
      hub_id  INTEGER NOT NULL,
      view    TEXT NOT NULL,
      slot    INTEGER NOT NULL,
      kind    TEXT NOT NULL CHECK (kind IN ('legacy', 'app')),
      card_id TEXT NOT NULL,
      app_id  INTEGER NOT NULL,
      PRIMARY KEY (hub_id, view, slot)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS cards_view_items_by_card ON cards_view_items (card_id, kind, hub_id);
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
  `);
}
