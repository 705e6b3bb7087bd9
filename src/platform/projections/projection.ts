import type Database from 'better-sqlite3';
import type { DomainEvent } from '../events/envelope';
import type { Recorded } from '../events/event-type-registry';

/**
 * A read model kept in the read-model SQLite database. The runner applies events in order inside
 * one transaction per batch, together with the projection's checkpoint, so a crash never leaves
 * a read model ahead of or behind its checkpoint. It hands a projection only the event types it
 * declares in `handles`, decoded (and upcast) through the event-type registry.
 */
export interface Projection<E extends DomainEvent = DomainEvent> {
  readonly name: string;
  /** Bump when the tables or the logic change: the runner then rebuilds from zero. */
  readonly version: number;
  /** The event types it applies; the runner never hands it others. */
  readonly handles: readonly E['type'][];
  /**
   * True when nothing it keeps of an archived event matters any more: an index into the live history
   * (its readers leave out positions that no longer hold an event), or facts that end well before the
   * retention window (a token's expiry). The archiver may then move the events it handles, and a
   * rebuild builds from what is live. Otherwise a stream holding a handled type stays live.
   */
  readonly allowsArchiving?: boolean;
  /** Creates the tables it owns (idempotent). */
  setup(db: Database.Database): void;
  /** Empties every table it owns. */
  reset(db: Database.Database): void;
  /** Applies one event; must be deterministic. */
  apply(event: Recorded<E>, db: Database.Database): void;
}

/**
 * A process manager that reacts to events by running commands (side effects). It is handed
 * events in order, at least once, with its own stored checkpoint: its commands must be idempotent.
 */
export interface Reactor<E extends DomainEvent = DomainEvent> {
  readonly name: string;
  /**
   * The event types it reacts to: the runner catches up by reading only those types (an index
   * lookup instead of the whole history) and never hands it the others.
   */
  readonly handles: readonly E['type'][];
  /**
   * Event types a read model kept outside this runner needs (the webhooks' delivery thread keeps its
   * own): streams holding one stay live, as for the types handled here, but they are not handed here.
   */
  readonly keepsLive?: readonly string[];
  handle(event: Recorded<E>): Promise<void>;
}
