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

  /** Whether any projection or reactor applied events: the read models were built from a history. */
  hasApplied(): boolean {
    return this.db.prepare('SELECT 1 FROM projection_checkpoints WHERE position > 0 LIMIT 1').get() !== undefined;
  }

  /** Whether the checkpoints were kept for a store of another kind (SQLite's, while EventStoreDB's is in use). */
  boundToAnotherKind(kind: string): boolean {
    const stored = (this.db.prepare('SELECT identity FROM projection_store').get() as { identity: string } | undefined)
      ?.identity;
    return stored !== undefined && !stored.startsWith(`${kind}:`);
  }

  /**
   * Ties the checkpoints to the store whose positions they are: `identity` is its kind and first
   * event's id, null while it is empty (then the kind alone is recorded, and the caller binds again
   * once the first event exists). Checkpoints of another store, of an unknown one (kept before
   * identities were recorded), or any past 0 while the store is empty, are dropped: every projection
   * then rebuilds and every reactor replays from the start (its commands are idempotent).
   *
   * Of the same store, a checkpoint past `head` (the store's newest position) was taken on events the
   * store no longer has: an older backup restored, or a WAL lost. Kept, its read model would serve
   * what no event says, and skip the new events written at the positions it believes applied; so
   * each such checkpoint is dropped and that read model alone rebuilds from zero. (Archiving never
   * lowers the head: its record is appended after the events it removes, and stays.)
   */
  bindToStore(kind: string, identity: string | null, head: number): StoreBinding {
    const stored = (this.db.prepare('SELECT identity FROM projection_store').get() as { identity: string } | undefined)
      ?.identity;
    const anyPosition = this.hasApplied();
    const kindOnly = `${kind}:`;
    const foreign =
      identity === null ? anyPosition : stored === undefined ? anyPosition : stored !== identity && stored !== kindOnly; // bound while this store was still empty
    const ahead = foreign
      ? []
      : (this.db
          .prepare('SELECT name, position FROM projection_checkpoints WHERE position > ? ORDER BY name')
          .all(head) as Array<{ name: string; position: number }>);
    this.db.transaction(() => {
      if (foreign) this.db.exec('DELETE FROM projection_checkpoints');
      else if (ahead.length > 0) this.db.prepare('DELETE FROM projection_checkpoints WHERE position > ?').run(head);
      this.db
        .prepare(
          'INSERT INTO projection_store (only, identity) VALUES (1, ?) ON CONFLICT(only) DO UPDATE SET identity = excluded.identity',
        )
        .run(identity ?? kindOnly);
    })();
    return { foreign, ahead };
  }

  save(name: string, version: number, position: number): void {
    cachedStatement(
      this.db,
      `INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`,
    ).run(name, version, position);
  }
}

/** What binding the checkpoints to the store dropped (Checkpoints.bindToStore). */
export interface StoreBinding {
  /** Every checkpoint, kept for another store. */
  foreign: boolean;
  /** The checkpoints past the store's head, each with the position it claimed. */
  ahead: Array<{ name: string; position: number }>;
}
