import type Database from 'better-sqlite3';
import type { EventRow } from './sqlite-row-format';

/** A row as selected: the type still its id. */
export type StoredRow = Omit<EventRow, 'type'> & { type_id: number };

/**
 * event_types as this connection knows it, id -> name. The writer thread adds names, so a miss
 * reloads the table before it is an error. Shared by the stream reads and the feed reads.
 */
export class SqliteTypeNames {
  private readonly names = new Map<number, string>();
  private readonly select: Database.Statement;

  constructor(db: Database.Database) {
    this.select = db.prepare('SELECT id, name FROM event_types');
  }

  /** Rows with their type names. */
  rows(rows: StoredRow[]): EventRow[] {
    return rows.map(({ type_id, ...row }) => {
      let type = this.names.get(type_id);
      if (type === undefined) {
        this.load();
        type = this.names.get(type_id);
        if (type === undefined) throw new Error(`events.sqlite: row ${row.position} has unknown type id ${type_id}`);
      }
      return { ...row, type };
    });
  }

  /** The id of a type name, or null when no event of it was ever stored. */
  idOf(name: string): number | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const [id, n] of this.names) if (n === name) return id;
      if (attempt === 0) this.load();
    }
    return null;
  }

  private load(): void {
    for (const t of this.select.all() as Array<{ id: number; name: string }>) this.names.set(t.id, t.name);
  }
}
