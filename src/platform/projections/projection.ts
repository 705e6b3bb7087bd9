import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/envelope';

/**
 * A read model kept in the read-model SQLite database. The runner applies events in order inside
 * one transaction per batch, together with the projection's checkpoint, so a crash never leaves
 * a read model ahead of or behind its checkpoint.
 */
export interface Projection {
  readonly name: string;
  /** Bump when the tables or the logic change: the runner then rebuilds from zero. */
  readonly version: number;
  /** Creates the tables it owns (idempotent). */
  setup(db: Database.Database): void;
  /** Empties every table it owns. */
  reset(db: Database.Database): void;
  /** Applies one event; must be deterministic and ignore types it does not know. */
  apply(event: RecordedEvent, db: Database.Database): void;
}

/**
 * A process manager that reacts to events by running commands (side effects). It is handed
 * events in order, at least once, with its own stored checkpoint: its commands must be idempotent.
 */
export interface Reactor {
  readonly name: string;
  /**
   * The event types it reacts to, when it knows them: the runner then catches up by reading only
   * those types (an index lookup instead of the whole history) and never hands it the others.
   */
  readonly eventTypes?: readonly string[];
  handle(event: RecordedEvent): Promise<void>;
}
