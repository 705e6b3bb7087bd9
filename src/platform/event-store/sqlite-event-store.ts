import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { EventMetadata, NewEvent, RecordedEvent } from '../events/envelope';
import { LiveTail, rowBytes } from './live-tail';
import { StreamCache } from './stream-cache';
import { appendAnswer, wireAppendOf, writerError, writtenRows } from './sqlite-appends';
import { sqliteWriter, type WireAppend, type WireGroupResult, type WireOutcome } from './sqlite-writer';
import { sqliteStorageFaultReason } from './storage-fault';
import {
  openRowFormat,
  readBackMetadata,
  storedEventId,
  streamKey,
  toRecorded,
  type EventRow,
} from './sqlite-row-format';
import { SqliteFeed } from './sqlite-feed';
import { SqliteTypeNames } from './sqlite-type-names';

import type {
  AppendResult,
  ArchivedEventRef,
  EventStore,
  ExpectedRevision,
  FeedSource,
  ReadAllOptions,
  ReadBackwardOptions,
  StoreRetention,
  Subscription,
} from './event-store.port';

interface PendingAppend {
  /** The stream, its expected revision and its events as the writer takes them. */
  wire: WireAppend;
  /** Each event's metadata as a read of its row gives it (see readBackMetadata). */
  appended: Array<Readonly<EventMetadata> | undefined>;
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
  /** Streams whose archived events this append deletes (see appendAndPurge). */
  purgedStreams?: string[];
}

/**
 * The writer answers each of this thread's messages in order: the group it wrote (or why not), or
 * that it closed; and it tells of each group another thread committed through its port.
 */
type WriterReply =
  | { result: WireGroupResult }
  | { failed: string; code?: string }
  | { closed: true }
  | { foreign: { group: WireAppend[]; outcomes: WireOutcome[] } };

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
  /** Approximate bytes the stream cache may hold (see rowBytes); unbounded when not given. */
  streamCacheBytes?: number;
  /**
   * Committed events kept in memory for readers of the whole feed (the projections), so they are
   * not read back from the file right after being written (0 turns it off). Sound under the same
   * condition as the stream cache: this instance is the file's one writer.
   */
  liveTailSize?: number;
  /** Approximate bytes the live tail may hold (see rowBytes); unbounded when not given. */
  liveTailBytes?: number;
}

/**
 * The writer thread: runs sqliteWriter from its source text (see sqlite-writer.ts). Groups come from
 * the store's own thread and from ports other threads were given (`openWriterPort`): each is
 * answered where it came from, and what another thread committed is also told to the store's thread
 * (`foreign`), in commit order with the store's own answers, for its live tail, cache and feeds.
 */
const WRITER_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const sqliteWriter = ${sqliteWriter.toString()};
const streamKey = ${streamKey.toString()};
const storedEventId = ${storedEventId.toString()};
const storageFaultReason = ${sqliteStorageFaultReason.toString()};
const writer = sqliteWriter(workerData.file, workerData.driverPath, { streamKey, storedEventId, storageFaultReason });
let closed = false;
const write = (group) => {
  if (closed) return { failed: 'event store is closed' };
  try {
    return { result: writer.write(group) };
  } catch (error) {
    return {
      failed: error && error.message ? error.message : String(error),
      code: error && typeof error.code === 'string' ? error.code : undefined,
    };
  }
};
parentPort.on('message', (message) => {
  if (message.close) {
    closed = true;
    writer.close();
    parentPort.postMessage({ closed: true });
    return;
  }
  if (message.attach) {
    const port = message.attach;
    port.on('message', ({ group }) => {
      const reply = write(group);
      port.postMessage(reply);
      if (reply.result && reply.result.written > 0) parentPort.postMessage({ foreign: { group, outcomes: reply.result.outcomes } });
    });
    return;
  }
  parentPort.postMessage(write(message.group));
});
`;

/**
 * Embedded event store on SQLite (WAL, synchronous=FULL).
 *
 * Writes happen on a writer thread with its own connection, so the commit's fsync never blocks
 * the event loop. Group commit: one group is in flight at a time, and the appends that arrive
 * while it commits are sent together as the next group, written in one transaction. Each append is
 * checked against its own expected revision (earlier appends of the same group count), and a
 * promise resolves only after the transaction that holds its events committed, so an acknowledged
 * append survives kill -9. Reads use this thread's connection, which
 * sees every acknowledged commit (WAL readers see all commits finished before their read began).
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  /** One queue, one writer thread that takes the appends of a group (and the groups) in order. */
  readonly appendsInCallOrder = true;
  readonly feedSource: FeedSource;
  /** Archived events are deleted in the transaction that appends their record. */
  readonly retention: StoreRetention = {
    appendRemovingArchived: (streamId, events, expected, archived) =>
      this.appendAndPurge(streamId, events, expected, archived.purge),
  };
  private readonly db: Database.Database;
  private readonly writer: Worker;
  private readonly appended = new EventEmitter();
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  /** Set when the writer thread died: every later append and ping fails with it. */
  private writerFailure: Error | null = null;
  /** The group the writer is committing (at most one at a time). */
  private inFlight: PendingAppend[] | null = null;
  private drained: (() => void) | null = null;
  private writerClosed: (() => void) | null = null;
  private readonly maxBatch: number;
  private readonly cache: StreamCache;
  private readonly liveTail: LiveTail;
  private readonly stmts: {
    head: Database.Statement;
    keptIdentity: Database.Statement;
    firstEventId: Database.Statement;
    keepIdentity: Database.Statement;
  };
  private readonly feed: SqliteFeed;

  constructor(
    file: string,
    private readonly options: SqliteEventStoreOptions = {},
  ) {
    this.feedSource = { kind: 'sqlite', file };
    this.maxBatch = options.maxBatch ?? 512;
    this.cache = new StreamCache(options.streamCacheSize ?? 0, options.streamCacheBytes);
    this.liveTail = new LiveTail(options.liveTailSize ?? 0, options.liveTailBytes);
    this.appended.setMaxListeners(0);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    // 2 MiB of page cache, not better-sqlite3's 16: this connection's reads are mostly served by the
    // stream cache and the live tail above it (issue 36's RSS, docs/records.md).
    this.db.pragma('cache_size = -2048');
    openRowFormat(this.db);
    this.stmts = {
      head: this.db.prepare('SELECT COALESCE(MAX(position), 0) AS p FROM event_log'),
      keptIdentity: this.db.prepare('SELECT identity FROM store_identity'),
      firstEventId: this.db.prepare('SELECT event_id FROM events ORDER BY position LIMIT 1'),
      keepIdentity: this.db.prepare('INSERT OR IGNORE INTO store_identity (only, identity) VALUES (1, ?)'),
    };
    this.feed = new SqliteFeed(this.db, this.liveTail, new SqliteTypeNames(this.db), this.appended, () => this.closed);
    this.liveTail.startAfter((this.stmts.head.get() as { p: number }).p);
    // The schema exists now; the writer only prepares its statements.
    this.writer = new Worker(WRITER_THREAD_SOURCE, {
      eval: true,
      workerData: { file, driverPath: require.resolve('better-sqlite3') },
    });
    this.writer.unref(); // referenced only while a group is in flight
    this.writer.on('message', (reply: WriterReply) => this.onReply(reply));
    this.writer.on('error', (error) => this.writerDied(error));
    this.writer.on('exit', (code) => {
      if (!this.closed) this.writerDied(new Error(`the event store's writer thread exited with code ${code}`));
    });
  }

  onCommitted(listener: () => void): () => void {
    this.appended.on('appended', listener);
    return () => this.appended.off('appended', listener);
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.appendAndPurge(streamId, events, expected, []);
  }

  /**
   * Appends like `append` and, in the same transaction, deletes archived events (each named by
   * position and event id, so nothing else can be deleted). Streams purged leave the stream cache
   * and the live tail restarts from the file.
   */
  appendAndPurge(
    streamId: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    purge: readonly ArchivedEventRef[],
  ): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (this.writerFailure) return Promise.reject(this.writerFailure);
    let wire: WireAppend;
    try {
      wire = wireAppendOf(streamId, events, expected);
      if (purge.length > 0) wire.purge = purge.map((r): [number, string] => [r.position, r.eventId]);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error))); // e.g. a BigInt in the data
    }
    const appended = events.map((e) => readBackMetadata(e.metadata));
    return new Promise<AppendResult>((resolve, reject) => {
      const pending: PendingAppend = { wire, appended, resolve, reject };
      if (purge.length > 0) pending.purgedStreams = [...new Set(purge.map((r) => r.streamId))];
      this.pending.push(pending);
      if (!this.flushScheduled && !this.inFlight) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Sends the queued appends (up to maxBatch) to the writer as one group. One group at a time:
   * appends arriving during a commit wait for it and then go together, so the group grows with
   * the load and the commits (one fsync each) do not queue up behind one another.
   */
  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.inFlight) return;
    const group = this.pending.slice(0, this.maxBatch);
    this.pending = this.pending.slice(group.length);
    this.inFlight = group;
    this.writer.ref(); // keeps the process alive until the commit is answered
    this.writer.postMessage({ group: group.map((a) => a.wire) });
  }

  private onReply(reply: WriterReply): void {
    if ('closed' in reply) return this.writerClosed?.();
    if ('foreign' in reply) return this.onForeignCommit(reply.foreign);
    const group = this.inFlight;
    if (!group) return;
    this.inFlight = null;
    this.writer.unref();
    // What queued up during this commit goes now, as the next group.
    if (this.pending.length > 0) this.flush();
    else this.drained?.();
    if ('failed' in reply) {
      // Nothing of this group is stored; the cache was not touched (it follows commits only).
      // The writer rolled back and stays usable: a storage fault refuses this group only.
      const error = writerError(reply.failed, reply.code);
      for (const a of group) a.reject(error);
      return;
    }
    const { outcomes, written } = reply.result;
    // Committed events go to the live tail and to cached streams before any promise resolves, so
    // a read after an acknowledgement sees them. Rows carry the stored text, so what memory serves
    // is exactly what a read of the file gives.
    if (written > 0) this.liveTail.newCommit();
    group.forEach((a, i) => this.remember(writtenRows(a.wire, outcomes[i]!, a.appended)));
    if (group.some((a) => a.wire.purge)) {
      for (const a of group) for (const s of a.purgedStreams ?? []) this.cache.forget(s);
      // Memory may hold purged rows: from here on, whole-feed reads before the head go to the file.
      this.liveTail.startAfter((this.stmts.head.get() as { p: number }).p);
    }
    this.options.onCommit?.(group.length, written);
    group.forEach((a, i) => {
      const answer = appendAnswer(a.wire, outcomes[i]!);
      if (answer instanceof Error) a.reject(answer);
      else a.resolve(answer);
    });
    if (written > 0) this.appended.emit('appended');
  }

  /** Rows just committed, in position order: into the live tail, and onto their streams if cached. */
  private remember(rows: readonly EventRow[]): void {
    for (const row of rows) {
      this.liveTail.committed(row);
      if (this.cache.has(row.stream_id)) this.cache.appended(toRecorded(row), rowBytes(row));
    }
  }

  /**
   * Another thread's group, committed through its port: its events are here as this thread's own
   * (live tail, cached streams, feeds, commit listeners), so nothing reads the file for them.
   */
  private onForeignCommit({ group, outcomes }: { group: WireAppend[]; outcomes: WireOutcome[] }): void {
    this.liveTail.newCommit();
    let written = 0;
    group.forEach((a, i) => {
      const rows = writtenRows(a, outcomes[i]!);
      written += rows.length;
      this.remember(rows);
    });
    this.options.onCommit?.(group.length, written);
    this.appended.emit('appended');
  }

  /**
   * A port to the writer thread for another thread of this process (the webhooks' delivery thread):
   * its appends go to the one writer, in the same order of commits, with no message through this
   * thread's event loop but the commit's notice. Transfer it to the thread (sqlite-thread-store.ts).
   */
  openWriterPort(): MessagePort {
    if (this.closed) throw new Error('event store is closed');
    if (this.writerFailure) throw this.writerFailure;
    const { port1, port2 } = new MessageChannel();
    this.writer.postMessage({ attach: port1 }, [port1]);
    return port2;
  }

  /** The writer thread is gone: nothing in flight or queued can be acknowledged any more. */
  private writerDied(error: Error): void {
    if (this.writerFailure) return;
    this.writerFailure = error;
    const lost = [...(this.inFlight ?? []), ...this.pending];
    this.inFlight = null;
    this.pending = [];
    for (const a of lost) a.reject(error);
    this.drained?.();
    this.writerClosed?.();
  }

  /** Approximate bytes held by the in-memory caches (tests, metrics). */
  cacheBytes(): { streamCache: number; liveTail: number } {
    return { streamCache: this.cache.bytes, liveTail: this.liveTail.bytes };
  }

  readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const cached = this.cache.get(streamId);
    if (cached) return Promise.resolve(fromRevision <= 0 ? cached : cached.filter((e) => e.revision >= fromRevision));
    // A tail read (a snapshot catching up) reads only the tail; the cache keeps whole streams.
    if (fromRevision > 0) return Promise.resolve(this.feed.streamRows(streamId, fromRevision).map(toRecorded));
    const rows = this.feed.streamRows(streamId, 0);
    const events = rows.map(toRecorded);
    this.cache.remember(
      streamId,
      events,
      rows.reduce((sum, row) => sum + rowBytes(row), 0),
    );
    return Promise.resolve(events.slice());
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return Promise.resolve(this.feed.readAll(options));
  }

  readBackward(options: ReadBackwardOptions): Promise<RecordedEvent[]> {
    return Promise.resolve(this.feed.readBackward(options));
  }

  readAt(positions: readonly number[]): Promise<RecordedEvent[]> {
    return Promise.resolve(this.feed.readAt(positions));
  }

  subscribeToAll(after: number): Subscription {
    return this.feed.subscribe(after);
  }

  headPosition(): Promise<number> {
    return Promise.resolve((this.stmts.head.get() as { p: number }).p);
  }

  /**
   * `sqlite:` and the id of the file's first event (a recreated file has another), kept once
   * known: archiving (see platform/archive) may later remove that event from the live store, and
   * the store must stay the same store for the read models' checkpoints (a changed identity
   * rebuilds every read model).
   */
  identity(): Promise<string | null> {
    const kept = this.stmts.keptIdentity.get() as { identity: string } | undefined;
    if (kept) return Promise.resolve(kept.identity);
    const first = this.stmts.firstEventId.get() as { event_id: string } | undefined;
    if (!first) return Promise.resolve(null);
    const identity = `sqlite:${first.event_id}`;
    this.stmts.keepIdentity.run(identity);
    return Promise.resolve(identity);
  }

  ping(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (this.writerFailure) return Promise.reject(this.writerFailure);
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  /** Sends what is queued, waits for every group in flight, then closes the writer and the reader. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.inFlight) await new Promise<void>((resolve) => (this.drained = resolve));
    if (!this.writerFailure) {
      this.writer.ref();
      const closed = new Promise<void>((resolve) => (this.writerClosed = resolve));
      this.writer.postMessage({ close: true });
      await closed;
    }
    await this.writer.terminate();
    this.appended.emit('appended');
    this.db.close();
  }
}
