import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { RecordedEvent } from '../events/envelope';
import type { FeedReader, ReadAllOptions, Subscription } from './event-store.port';
import { LiveTail } from './live-tail';
import { SqliteFeed } from './sqlite-feed';
import { SqliteTypeNames } from './sqlite-type-names';

/**
 * The SQLite store's feed read from another thread of the same process, on a connection of its
 * own (WAL: it sees every commit finished before each read began). It never writes. The thread
 * that owns the store tells it of each commit (`committed`), which wakes its subscriptions.
 */
export class SqliteFeedReader implements FeedReader {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  protected readonly feed: SqliteFeed;
  private readonly appended = new EventEmitter();
  private readonly head: Database.Statement;
  private closed = false;

  constructor(file: string) {
    this.db = new Database(file, { fileMustExist: true });
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('query_only = true');
    // Its reads are the feed's newest pages, once each: a small cache.
    this.db.pragma('cache_size = -1024');
    this.appended.setMaxListeners(0);
    this.head = this.db.prepare('SELECT COALESCE(MAX(position), 0) AS p FROM event_log');
    this.feed = new SqliteFeed(
      this.db,
      new LiveTail(0),
      new SqliteTypeNames(this.db),
      this.appended,
      () => this.closed,
      // The delivery thread's outbox and its dispatcher each tail the whole feed: each commit is read
      // and parsed once for both (the second reader of a batch takes the first one's frozen events).
      true,
    );
  }

  /** The owner committed events: subscriptions read on. */
  committed(): void {
    this.appended.emit('appended');
  }

  readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return Promise.resolve(this.feed.readAll(options));
  }

  subscribeToAll(after: number): Subscription {
    return this.feed.subscribe(after);
  }

  headPosition(): Promise<number> {
    return Promise.resolve((this.head.get() as { p: number }).p);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.appended.emit('appended');
    this.db.close();
  }
}
