import type Database from 'better-sqlite3';
import type { EventEmitter } from 'node:events';
import type { RecordedEvent } from '../events/envelope';
import { typeFilter, type ReadAllOptions, type ReadBackwardOptions, type Subscription } from './event-store.port';
import { firstAfter, type LiveTail } from './live-tail';
import { streamKey, toFrozenRecorded, toRecorded, type EventRow } from './sqlite-row-format';
import type { SqliteTypeNames, StoredRow } from './sqlite-type-names';

/** Events a feed reads per batch. */
const FEED_BATCH = 1000;

/**
 * The SQLite store's whole-feed reads: `readAll` (the live tail when it has the range, else one
 * index range per filter) and `subscribeToAll` (catch-up, then woken by each commit). Apart from
 * the store's write path, which only tells it that something was committed.
 */
export class SqliteFeed {
  /** The newest whole-feed read from the file (shareReads): the events after `after`, in order. */
  private shared: { after: number; events: RecordedEvent[] } = { after: 0, events: [] };
  private readonly stmts: {
    readAll: Database.Statement;
    readAllByStream: Database.Statement;
    readAllByType: Database.Statement;
    readAllByStreamAndType: Database.Statement;
    readBackward: Database.Statement;
    readBackwardByStream: Database.Statement;
    readBackwardByType: Database.Statement;
    readBackwardByStreamAndType: Database.Statement;
    readAt: Database.Statement;
    readStream: Database.Statement;
  };

  constructor(
    db: Database.Database,
    private readonly liveTail: LiveTail,
    private readonly typeNames: SqliteTypeNames,
    /** Emits 'appended' after every commit that wrote events (and once on close). */
    private readonly appended: EventEmitter,
    private readonly storeClosed: () => boolean,
    /**
     * Keep the newest whole-feed read from the file, frozen, for the next reader of a range it holds
     * (see sharedAfter). For a connection without a live tail whose readers tail the same feed.
     */
    private readonly shareReads = false,
  ) {
    const cols = 'position, stream_id, revision, event_id, type_id, data, metadata';
    this.stmts = {
      readAll: db.prepare(`SELECT ${cols} FROM event_log WHERE position > ? ORDER BY position LIMIT ?`),
      readAllByStream: db.prepare(
        `SELECT ${cols} FROM event_log WHERE stream_key = ? AND stream_id = ? AND position > ? ORDER BY position LIMIT ?`,
      ),
      readAllByType: db.prepare(
        `SELECT ${cols} FROM event_log WHERE type_id = ? AND position > ? ORDER BY position LIMIT ?`,
      ),
      readAllByStreamAndType: db.prepare(
        `SELECT ${cols} FROM event_log WHERE stream_key = ? AND stream_id = ? AND type_id = ? AND position > ? ORDER BY position LIMIT ?`,
      ),
      readBackward: db.prepare(`SELECT ${cols} FROM event_log WHERE position < ? ORDER BY position DESC LIMIT ?`),
      readBackwardByStream: db.prepare(
        `SELECT ${cols} FROM event_log WHERE stream_key = ? AND stream_id = ? AND position < ? ORDER BY position DESC LIMIT ?`,
      ),
      readBackwardByType: db.prepare(
        `SELECT ${cols} FROM event_log WHERE type_id = ? AND position < ? ORDER BY position DESC LIMIT ?`,
      ),
      readBackwardByStreamAndType: db.prepare(
        `SELECT ${cols} FROM event_log WHERE stream_key = ? AND stream_id = ? AND type_id = ? AND position < ? ORDER BY position DESC LIMIT ?`,
      ),
      readAt: db.prepare(`SELECT ${cols} FROM event_log WHERE position = ?`),
      readStream: db.prepare(
        `SELECT ${cols} FROM event_log WHERE stream_key = ? AND stream_id = ? AND revision >= ? ORDER BY revision`,
      ),
    };
  }

  readAll(o: ReadAllOptions): RecordedEvent[] {
    if (!o.streamId && !o.type && !o.types) {
      const recent = this.liveTail.recordedAfter(o.after, o.limit) ?? this.sharedAfter(o.after, o.limit);
      if (recent) return recent;
      if (this.shareReads) {
        const events = this.typeNames
          .rows(this.stmts.readAll.all(o.after, o.limit) as StoredRow[])
          .map(toFrozenRecorded);
        this.shared = { after: o.after, events };
        return events;
      }
    }
    const types = typeFilter(o);
    if (types !== undefined && types.size !== 1) return this.readAllOfTypes(o, types);
    let rows: StoredRow[];
    const typeId = types === undefined ? undefined : this.typeNames.idOf([...types][0]!);
    if (typeId === null) return []; // a type never stored
    if (o.streamId && typeId !== undefined)
      rows = this.stmts.readAllByStreamAndType.all(
        streamKey(o.streamId),
        o.streamId,
        typeId,
        o.after,
        o.limit,
      ) as StoredRow[];
    else if (o.streamId)
      rows = this.stmts.readAllByStream.all(streamKey(o.streamId), o.streamId, o.after, o.limit) as StoredRow[];
    else if (typeId !== undefined) rows = this.stmts.readAllByType.all(typeId, o.after, o.limit) as StoredRow[];
    else rows = this.stmts.readAll.all(o.after, o.limit) as StoredRow[];
    return this.typeNames.rows(rows).map(toRecorded);
  }

  /**
   * Up to `limit` events after `position` from the newest shared read, when it holds them: it is the
   * whole feed after its own `after`, so any suffix of it is the feed after a later position (the
   * reader reads the file again from its end). Undefined when it does not reach back that far.
   */
  private sharedAfter(position: number, limit: number): RecordedEvent[] | undefined {
    const { after, events } = this.shared;
    if (events.length === 0 || position < after || position >= events[events.length - 1]!.position) return undefined;
    const from = firstAfter(events, position);
    return events.slice(from, from + limit);
  }

  /** Newest first, `before` exclusive: the same index ranges as `readAll`, walked downwards. */
  readBackward(o: ReadBackwardOptions): RecordedEvent[] {
    const typeId = o.type === undefined ? undefined : this.typeNames.idOf(o.type);
    if (typeId === null) return [];
    let rows: unknown[];
    if (o.streamId && typeId !== undefined)
      rows = this.stmts.readBackwardByStreamAndType.all(streamKey(o.streamId), o.streamId, typeId, o.before, o.limit);
    else if (o.streamId)
      rows = this.stmts.readBackwardByStream.all(streamKey(o.streamId), o.streamId, o.before, o.limit);
    else if (typeId !== undefined) rows = this.stmts.readBackwardByType.all(typeId, o.before, o.limit);
    else rows = this.stmts.readBackward.all(o.before, o.limit);
    return this.typeNames.rows(rows as StoredRow[]).map(toRecorded);
  }

  /** One stream's rows from `fromRevision` on, in revision order. */
  streamRows(streamId: string, fromRevision: number): EventRow[] {
    return this.typeNames.rows(this.stmts.readStream.all(streamKey(streamId), streamId, fromRevision) as StoredRow[]);
  }

  /** The events at these positions (primary-key lookups), in the order asked; missing ones left out. */
  readAt(positions: readonly number[]): RecordedEvent[] {
    const rows = positions.map((p) => this.stmts.readAt.get(p) as StoredRow | undefined).filter((r) => r !== undefined);
    return this.typeNames.rows(rows).map(toRecorded);
  }

  /**
   * Several types: one index range per type (each at most `limit` rows), merged by position. An
   * `IN (...)` over the (type_id, position) index would sort every later row of those types
   * before applying the limit.
   */
  private readAllOfTypes(o: ReadAllOptions, types: ReadonlySet<string>): RecordedEvent[] {
    const merged: StoredRow[] = [];
    for (const type of types) {
      const typeId = this.typeNames.idOf(type);
      if (typeId === null) continue; // a type never stored
      const rows = o.streamId
        ? this.stmts.readAllByStreamAndType.all(streamKey(o.streamId), o.streamId, typeId, o.after, o.limit)
        : this.stmts.readAllByType.all(typeId, o.after, o.limit);
      merged.push(...(rows as StoredRow[]));
    }
    merged.sort((a, b) => a.position - b.position);
    return this.typeNames.rows(merged.slice(0, o.limit)).map(toRecorded);
  }

  subscribe(after: number): Subscription {
    let closed = false;
    let generation = 0; // bumped on every commit, so a wake-up between read and wait is never lost
    let wake: (() => void) | null = null;
    const onAppended = () => {
      generation += 1;
      const w = wake;
      wake = null;
      w?.();
    };
    this.appended.on('appended', onAppended);
    const storeClosed = this.storeClosed;
    const read = (position: number) => this.readAll({ after: position, limit: FEED_BATCH });
    const unsubscribe = () => this.appended.off('appended', onAppended);
    async function* feed(): AsyncGenerator<RecordedEvent[]> {
      let position = after;
      try {
        while (!closed && !storeClosed()) {
          const seen = generation;
          const batch = read(position);
          if (batch.length > 0) {
            position = batch[batch.length - 1]!.position;
            yield batch;
            continue;
          }
          if (seen !== generation) continue;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        unsubscribe();
      }
    }
    const iterator = feed();
    return {
      [Symbol.asyncIterator]: () => iterator,
      close: () => {
        closed = true;
        const w = wake;
        wake = null;
        w?.();
      },
    };
  }
}
