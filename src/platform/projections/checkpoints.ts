import type Database from 'better-sqlite3';
import { cachedStatement } from './statement-cache';

/**
 * Each projection's and reactor's position in the global feed, in the read-model database, next
 * to the read models themselves: a projection's checkpoint commits in the transaction of its batch.
 */
export class Checkpoints {
  constructor(private readonly db: Database.Database) {}

  /** The stored position, or -1 when there is none for this version (unknown or outdated: rebuild). */
  get(name: string, version: number): number {
    const row = cachedStatement(this.db, 'SELECT version, position FROM projection_checkpoints WHERE name = ?').get(
      name,
    ) as { version: number; position: number } | undefined;
    return row && row.version === version ? row.position : -1;
  }

  /**
   * Ties the checkpoints to the store whose positions they are: `identity` is its kind and first
   * event's id, null while it is empty (then the kind alone is recorded, and the caller binds again
   * once the first event exists). Checkpoints of another store, of an unknown one (kept before
   * identities were recorded), or any past 0 while the store is empty, are dropped: every projection
   * then rebuilds and every reactor replays from the start (its commands are idempotent).
   * Returns whether they were dropped.
   */
  bindToStore(kind: string, identity: string | null): boolean {
    const stored = (this.db.prepare('SELECT identity FROM projection_store').get() as { identity: string } | undefined)
      ?.identity;
    const anyPosition =
      this.db.prepare('SELECT 1 FROM projection_checkpoints WHERE position > 0 LIMIT 1').get() !== undefined;
    const kindOnly = `${kind}:`;
    const foreign =
      identity === null ? anyPosition : stored === undefined ? anyPosition : stored !== identity && stored !== kindOnly; // bound while this store was still empty
    this.db.transaction(() => {
      if (foreign) this.db.exec('DELETE FROM projection_checkpoints');
      this.db
        .prepare(
          'INSERT INTO projection_store (only, identity) VALUES (1, ?) ON CONFLICT(only) DO UPDATE SET identity = excluded.identity',
        )
        .run(identity ?? kindOnly);
    })();
    return foreign;
  }

  save(name: string, version: number, position: number): void {
    cachedStatement(
      this.db,
      `INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`,
    ).run(name, version, position);
  }
}
