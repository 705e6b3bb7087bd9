import type { MessagePort } from 'node:worker_threads';
import type { NewEvent, RecordedEvent } from '../events/envelope';

/** `no_stream`: the stream must not exist; a number: the revision of the stream's last event. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. 0 = from the start. */
  after: number;
  limit: number;
  /** Only events of this exact stream. */
  streamId?: string;
  /** Only events of this exact type. */
  type?: string;
  /**
   * Only events of one of these types, in one pass over the feed (a reactor catching up on all
   * its types). With `type` too: events of either. Empty: none.
   */
  types?: readonly string[];
}

/** A page of the feed read newest first (the console's audit trail): `before` is exclusive. */
export interface ReadBackwardOptions {
  /** Events strictly before this position; Number.MAX_SAFE_INTEGER for the newest. */
  before: number;
  limit: number;
  streamId?: string;
  type?: string;
}

/** The set of types a read keeps (undefined: every type). */
export const typeFilter = (o: Pick<ReadAllOptions, 'type' | 'types'>): ReadonlySet<string> | undefined =>
  o.type === undefined && o.types === undefined
    ? undefined
    : new Set([...(o.types ?? []), ...(o.type === undefined ? [] : [o.type])]);

export interface Subscription extends AsyncIterable<RecordedEvent[]> {
  close(): void;
}

/** One archived event, named so that nothing else can be removed in its place. */
export interface ArchivedEventRef {
  position: number;
  eventId: string;
  streamId: string;
}

/** The events of one archive batch, as each store needs them named to let them go. */
export interface ArchivedEvents {
  /** Every archived event (a store that deletes rows deletes exactly these). */
  purge: readonly ArchivedEventRef[];
  /** Each archived stream with its last archived revision (a store that truncates streams cuts there). */
  streams: ReadonlyArray<{ streamId: string; lastRevision: number }>;
}

/**
 * A store's own way of removing archived events from the live store (docs/retention.md), so that
 * the archiver and the command layer never ask which store they run on.
 */
export interface StoreRetention {
  /**
   * Appends the record of an archive batch and removes the batch's events, so that the record never
   * stands while its events stay: SQLite deletes them in the append's transaction; EventStoreDB
   * truncates the streams first (idempotent, so a crash before the record only repeats it).
   */
  appendRemovingArchived(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    archived: ArchivedEvents,
  ): Promise<AppendResult>;
}

/**
 * Where another thread of this process can read the same feed (its own connection): the SQLite
 * file, or the EventStoreDB connection string. Absent on a store no other thread can open.
 */
export type FeedSource = { kind: 'sqlite'; file: string } | { kind: 'eventstoredb'; connectionString: string };

/** The reads a projection runner needs: the feed, its head and typed pages. */
export type FeedReader = Pick<EventStore, 'kind' | 'readAll' | 'subscribeToAll' | 'headPosition'>;

/** What command handlers use (platform/commands/event-streams.ts): a stream's events and appends. */
export type StreamStore = Pick<EventStore, 'kind' | 'appendsInCallOrder' | 'append' | 'readStream' | 'retention'>;

/** Store-neutral port. The SQLite adapter and the EventStoreDB adapter pass one contract suite. */
export interface EventStore {
  readonly kind: 'sqlite' | 'eventstoredb';
  /**
   * True when appends take effect in the order `append` was called, even when a caller does not
   * wait for one before calling the next (one writer, one queue): dependent appends may then be
   * issued together and share a commit. False for a networked store, where calls may overtake.
   */
  readonly appendsInCallOrder: boolean;
  /** Where a worker thread reads the same feed (the webhooks' delivery thread). */
  readonly feedSource?: FeedSource;
  /**
   * Calls `listener` after each commit that wrote events: how a reader of the same SQLite file on
   * another thread learns that there is more to read. Returns the way to stop. Absent where the
   * other reader is told by the store itself (EventStoreDB's subscriptions).
   */
  onCommitted?(listener: () => void): () => void;
  /**
   * SQLite: a port another thread appends through (to the one writer thread; see
   * sqlite-thread-store.ts), its commits told to this store as its own. Absent where another thread
   * opens a connection of its own (EventStoreDB).
   */
  openWriterPort?(): MessagePort;
  /** How this store removes archived events; absent when it cannot (archiving is then refused). */
  readonly retention?: StoreRetention;
  /**
   * Appends atomically, checking the stream's revision. Resolves only once durable.
   * Re-appending events whose ids are already in the stream is a no-op that returns the original result.
   * Throws ConcurrencyError on a revision mismatch.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** All events of a stream in order; [] when it does not exist. */
  readStream(streamId: string, fromRevision?: number): Promise<RecordedEvent[]>;
  /** A page of the global feed, in order. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * A page of the global feed, newest first: on SQLite through the same indexes as `readAll`; on
   * EventStoreDB a stream read backwards, or $all read backwards and filtered by type as it goes
   * (a rare type may cost a long walk: callers that must bound a page filter the type themselves).
   */
  readBackward?(options: ReadBackwardOptions): Promise<RecordedEvent[]>;
  /**
   * The events at these positions (ones an index recorded), in the order asked; a position holding
   * none of our events (archived, or never one) is left out. Absent on a store that cannot.
   */
  readAt?(positions: readonly number[]): Promise<RecordedEvent[]>;
  /** Catch-up from `after` (exclusive), then live, in batches, in order. */
  subscribeToAll(after: number): Subscription;
  /** Position of the newest event (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Which store this is: kind and the id of its first event (null while empty). Positions are only
   * meaningful to the store that issued them; checkpoints record this to notice another store.
   */
  identity(): Promise<string | null>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
  /** Finishes pending appends, then closes. */
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');
