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

  save(name: string, version: number, position: number): void {
    cachedStatement(
      this.db,
      `INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`,
    ).run(name, version, position);
  }
}
