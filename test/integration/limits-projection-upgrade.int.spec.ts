import Database from 'better-sqlite3';
import { LimitsProjection } from '../../src/crm-schema/projections/limits.projection';

describe('limits projection v2 on a read model made by v1', () => {
  it('adds updated_user_id to limits_properties (the version bump then rebuilds the rows)', () => {
    const db = new Database(':memory:');
    try {
      // The v1 table, as version 1 of the projection created it.
      db.exec(`CREATE TABLE limits_properties (
        hub_id INTEGER NOT NULL, object_type_id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL,
        calculated INTEGER NOT NULL, created_user_id INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER, PRIMARY KEY (hub_id, object_type_id, name)
      ) WITHOUT ROWID`);
      const projection = new LimitsProjection();
      expect(projection.version).toBe(2);
      projection.setup(db);
      projection.setup(db); // idempotent
      const columns = (db.prepare('PRAGMA table_info(limits_properties)').all() as Array<{ name: string }>).map(
        (c) => c.name,
      );
      expect(columns.filter((c) => c === 'updated_user_id')).toHaveLength(1);
    } finally {
      db.close();
    }
  });
});
