import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import { ConcurrencyError } from './concurrency-error';
import { StreamCache } from './stream-cache';
import type { AppendResult, EventStore, ExpectedRevision, ReadAllOptions, Subscription } from './event-store.port';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
}

export interface SqliteEventStoreOptions {
  /** Most appends grouped into one transaction. */
  maxBatch?: number;
  /** Called after every committed group with the number of appends and events in it. */
  onCommit?: (appends: number, events: number) => void;
  /**
   * Streams whose events are kept in memory after a read (bounded LRU; 0 turns it off). Sound only
   * while this instance is the file's one writer (the embedded deployment): every append goes through
   * this object, which updates a cached stream after the commit.
   */
  streamCacheSize?: number;
}

/** Thrown inside an append's savepoint (so its partial inserts roll back) when an event id is already stored. */
class ReplayedAppend extends Error {}

// No `instanceof Error`: the driver's errors may come from another realm (jest's vm contexts).
const isUniqueViolation = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE';

const toRecorded = (row: EventRow): RecordedEvent => ({
  streamId: row.stream_id,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: JSON.parse(row.data) as unknown,
  metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
});

/**
 * Embedded event store on SQLite (WAL, synchronous=FULL).
 *
 * Group commit: appends that arrive while a commit is pending are queued and written in one
 * transaction on the next turn of the event loop. Each append is still checked against its own
 * expected revision (earlier appends of the same group count), and a promise resolves only after
 * the transaction that holds its events committed, so an acknowledged append survives kill -9.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly maxBatch: number;
  private readonly cache: StreamCache;
  private readonly stmts: {
    insert: Database.Statement;
    streamRevision: Database.Statement;
    byEventId: Database.Statement;
    readStream: Database.Statement;
    readAll: Database.Statement;
    readAllByStream: Database.Statement;
    readAllByType: Database.Statement;
    readAllByStreamAndType: Database.Statement;
    head: Database.Statement;
  };

  constructor(
    file: string,
    private readonly options: SqliteEventStoreOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 512;
    this.cache = new StreamCache(options.streamCacheSize ?? 0);
    this.appended.setMaxListeners(0);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position  INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id TEXT    NOT NULL,
        revision  INTEGER NOT NULL,
        event_id  TEXT    NOT NULL UNIQUE,
        type      TEXT    NOT NULL,
        data      TEXT    NOT NULL,
        metadata  TEXT    NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE INDEX IF NOT EXISTS events_by_type ON events (type, position);
    `);
    const cols = 'position, stream_id, revision, event_id, type, data, metadata';
    this.stmts = {
      insert: this.db.prepare(
        'INSERT INTO events (stream_id, revision, event_id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      streamRevision: this.db.prepare('SELECT MAX(revision) AS r FROM events WHERE stream_id = ?'),
      byEventId: this.db.prepare('SELECT position, stream_id, revision FROM events WHERE event_id = ?'),
      readStream: this.db.prepare(`SELECT ${cols} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`),
      readAll: this.db.prepare(`SELECT ${cols} FROM events WHERE position > ? ORDER BY position LIMIT ?`),
      readAllByStream: this.db.prepare(
        `SELECT ${cols} FROM events WHERE stream_id = ? AND position > ? ORDER BY position LIMIT ?`,
      ),
      readAllByType: this.db.prepare(
        `SELECT ${cols} FROM events WHERE type = ? AND position > ? ORDER BY position LIMIT ?`,
      ),
      readAllByStreamAndType: this.db.prepare(
        `SELECT ${cols} FROM events WHERE stream_id = ? AND type = ? AND position > ? ORDER BY position LIMIT ?`,
      ),
      head: this.db.prepare('SELECT COALESCE(MAX(position), 0) AS p FROM events'),
    };
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ streamId, events, expected, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Writes every queued append in one transaction; settles each promise after the commit. */
  private flush(): void {
    this.flushScheduled = false;
    const group = this.pending;
    if (group.length === 0) return;
    this.pending = [];
    const outcomes: Array<{ ok: true; value: AppendResult } | { ok: false; error: unknown }> = [];
    // Events this group wrote, in commit order, for the stream cache (applied only once committed).
    const committed: RecordedEvent[] = [];
    let written = 0;
    try {
      this.db.transaction(() => {
        // Revisions of streams touched earlier in this group.
        const revisions = new Map<string, number>();
        for (const a of group) {
          try {
            let result: { value: AppendResult; replayed: boolean };
            try {
              // A nested transaction is a SAVEPOINT: an append failing part-way leaves nothing behind.
              // One event is one INSERT, atomic by itself: no savepoint needed (two statements saved).
              result =
                a.events.length === 1
                  ? this.appendInTransaction(a, revisions, committed)
                  : this.db.transaction(() => this.appendInTransaction(a, revisions, committed))();
            } catch (error) {
              if (!(error instanceof ReplayedAppend)) throw error;
              const current =
                revisions.get(a.streamId) ??
                (this.stmts.streamRevision.get(a.streamId) as { r: number | null }).r ??
                -1;
              result = { value: this.replayOf(a, current), replayed: true };
            }
            if (!result.replayed) written += a.events.length;
            outcomes.push({ ok: true, value: result.value });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      // Nothing of this group is stored; a cached stream the group touched may be ahead of nothing,
      // but appends only reach the cache after the commit, so the cache still matches the file.
      for (const a of group) a.reject(error);
      return;
    }
    for (const e of committed) this.cache.appended(e);
    this.options.onCommit?.(group.length, written);
    group.forEach((a, i) => {
      const o = outcomes[i]!;
      if (o.ok) a.resolve(o.value);
      else a.reject(o.error);
    });
    if (written > 0) this.appended.emit('appended');
  }

  private appendInTransaction(
    a: PendingAppend,
    revisions: Map<string, number>,
    committed: RecordedEvent[],
  ): { value: AppendResult; replayed: boolean } {
    const known = revisions.get(a.streamId);
    // A new stream needs no revision lookup: its first insert at revision 0 fails on
    // UNIQUE (stream_id, revision) exactly when the stream exists (revisions start at 0, no gaps).
    if (known === undefined && a.expected === 'no_stream') return this.insertEvents(a, -1, revisions, committed);
    const current = known ?? (this.stmts.streamRevision.get(a.streamId) as { r: number | null }).r ?? -1;
    const ok =
      a.expected === 'any' ||
      (a.expected === 'no_stream' && current < 0) ||
      (a.expected === 'stream_exists' && current >= 0) ||
      a.expected === current;
    // A re-append of stored events answers with the original result even when the revision moved on.
    if (!ok) return { value: this.replayOf(a, current), replayed: true };
    return this.insertEvents(a, current, revisions, committed);
  }

  private insertEvents(
    a: PendingAppend,
    current: number,
    revisions: Map<string, number>,
    committed: RecordedEvent[],
  ): { value: AppendResult; replayed: boolean } {
    let revision = current;
    let position = 0;
    const rows: EventRow[] = [];
    for (const e of a.events) {
      revision += 1;
      const data = JSON.stringify(e.data);
      const metadata = JSON.stringify(e.metadata);
      let info: Database.RunResult;
      try {
        info = this.stmts.insert.run(a.streamId, revision, e.metadata.eventId, e.type, data, metadata);
      } catch (error) {
        // The event id is stored already: the idempotency check runs only then, not on every append.
        if (isUniqueViolation(error)) throw new ReplayedAppend();
        throw error;
      }
      position = Number(info.lastInsertRowid);
      rows.push({
        position,
        stream_id: a.streamId,
        revision,
        event_id: e.metadata.eventId,
        type: e.type,
        data,
        metadata,
      });
    }
    // Only streams already cached are extended (write-once streams never enter the cache), and
    // from the stored text, so a cached event is exactly what a read of the file gives.
    if (this.cache.has(a.streamId)) for (const row of rows) committed.push(toRecorded(row));
    revisions.set(a.streamId, revision);
    return { value: { nextExpectedRevision: revision, position }, replayed: false };
  }

  /** The original result of an append whose events are all stored in this stream, in order; else a conflict. */
  private replayOf(a: PendingAppend, current: number): AppendResult {
    const stored = a.events.map(
      (e) =>
        this.stmts.byEventId.get(e.metadata.eventId) as
          { position: number; stream_id: string; revision: number } | undefined,
    );
    const first = stored[0];
    const same =
      first !== undefined &&
      stored.every((s, i) => s && s.stream_id === a.streamId && s.revision === first.revision + i);
    if (!same) throw new ConcurrencyError(a.streamId, a.expected, current < 0 ? 'no_stream' : current);
    const last = stored[stored.length - 1]!;
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const cached = this.cache.get(streamId);
    if (cached) return Promise.resolve(fromRevision <= 0 ? cached : cached.filter((e) => e.revision >= fromRevision));
    const events = (this.stmts.readStream.all(streamId, 0) as EventRow[]).map(toRecorded);
    this.cache.remember(streamId, events);
    return Promise.resolve(fromRevision <= 0 ? events.slice() : events.filter((e) => e.revision >= fromRevision));
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return Promise.resolve(this.readAllSync(options));
  }

  private readAllSync(o: ReadAllOptions): RecordedEvent[] {
    let rows: EventRow[];
    if (o.streamId && o.type)
      rows = this.stmts.readAllByStreamAndType.all(o.streamId, o.type, o.after, o.limit) as EventRow[];
    else if (o.streamId) rows = this.stmts.readAllByStream.all(o.streamId, o.after, o.limit) as EventRow[];
    else if (o.type) rows = this.stmts.readAllByType.all(o.type, o.after, o.limit) as EventRow[];
    else rows = this.stmts.readAll.all(o.after, o.limit) as EventRow[];
    return rows.map(toRecorded);
  }

  subscribeToAll(after: number): Subscription {
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
    const storeClosed = () => this.closed;
    const read = (position: number) => this.readAllSync({ after: position, limit: 1000 });
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

  headPosition(): Promise<number> {
    return Promise.resolve((this.stmts.head.get() as { p: number }).p);
  }

  ping(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.flush();
    this.closed = true;
    this.appended.emit('appended');
    this.db.close();
    return Promise.resolve();
  }
}
