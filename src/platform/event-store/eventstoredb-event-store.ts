import { BACKWARDS, END, StreamNotFoundError, type Credentials } from '@eventstore/db-client';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import {
  typeFilter,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type FeedSource,
  type ReadAllOptions,
  type ReadBackwardOptions,
  type StoreRetention,
  type Subscription,
} from './event-store.port';
import {
  appendCredentials,
  connectEsdb,
  ReadDeadlineError,
  type EsdbClient,
  type EsdbReadable,
} from './eventstoredb-client';
import { EsdbAllFeeds, type EsdbFeedOptions } from './eventstoredb-feed';
import {
  errorText,
  isInvalidPosition,
  isUnknownAppendOutcome,
  rawPosition,
  reportedAppendPosition,
  toConcurrencyError,
  toEsdbExpectedRevision,
  toEventData,
  toReadPosition,
  toRecordedEvent,
  type EsdbResolvedEvent,
} from './eventstoredb-mapping';
import { EventStoreDbRetention } from './eventstoredb-retention';
import { toEsdbStorageFault } from './eventstoredb-storage-errors';
import { InvalidPositionError, StoreUnavailableError } from './store-errors';

export { ReadDeadlineError } from './eventstoredb-client';

const noop = (): void => undefined;

const isStreamNotFound = (error: unknown): boolean =>
  error instanceof StreamNotFoundError ||
  (typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'stream-not-found');

/** The feed's options (backoff, onSubscriptionError, subscribeDeadlineMs) and the adapter's own. */
export interface EventStoreDbEventStoreOptions extends EsdbFeedOptions {
  /** Sends of one append whose outcome stays unknown before giving up with a 503 (default 4). */
  appendAttempts?: number;
  /** Pause between those sends (default 250 ms, doubled each time). */
  appendRetryDelayMs?: number;
  /** Longest a read (a page, a stream, a head lookup) may take (default 10 s; ping: 5 s). */
  readDeadlineMs?: number;
  /** How long a head position read is reused (default 1 s): readiness probes must not each walk $all. */
  headCacheMs?: number;
  /** Clock of the head cache. */
  now?: () => number;
  /** Credentials every append carries (required with an injected client; see appendCredentials). */
  credentials?: Credentials;
}

const PAGE = 512;

/** EventStoreDB adapter of the store-neutral port (@eventstore/db-client 6.2.1, gRPC). */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  readonly feedSource?: FeedSource;
  /** Concurrent gRPC calls may reach the server in any order. */
  readonly appendsInCallOrder = false;
  /** `$tb` on archived streams (the real client only: a scripted stand-in has no metadata calls). */
  readonly retention?: StoreRetention;
  private readonly client: EsdbClient;
  private readonly credentials: Credentials;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly feeds: EsdbAllFeeds;
  private closed = false;
  private disposed = false;
  private head: { position: number; at: number } | null = null;
  private headRead: Promise<number> | null = null;
  private firstEventId: string | null = null;

  constructor(
    connection: string | EsdbClient,
    private readonly options: EventStoreDbEventStoreOptions = {},
  ) {
    if (typeof connection === 'string') {
      this.feedSource = { kind: 'eventstoredb', connectionString: connection };
      this.credentials = options.credentials ?? appendCredentials(connection);
      this.client = connectEsdb(connection);
    } else {
      if (!options.credentials) throw new Error('an injected EventStoreDB client needs options.credentials');
      this.credentials = options.credentials;
      this.client = connection;
    }
    this.feeds = new EsdbAllFeeds(
      this.client,
      options,
      (position) => this.recordAt(position),
      (position) => this.sawPosition(position),
    );
    const setStreamMetadata = this.client.setStreamMetadata?.bind(this.client);
    if (setStreamMetadata) {
      this.retention = new EventStoreDbRetention(
        {
          // With credentials, like every append: else the metadata write rides 6.2.1's shared batch-append stream.
          setStreamMetadata: (streamId, metadata) =>
            this.track(() => setStreamMetadata(streamId, metadata, { credentials: this.credentials })),
        },
        (streamId, events, expected) => this.append(streamId, events, expected),
      );
    }
  }

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Tracks a call so close() waits for it instead of cutting it short. */
  private track<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const pending = work();
    this.inFlight.add(pending);
    const settle = () => this.inFlight.delete(pending);
    pending.then(settle, settle);
    return pending;
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return this.track(() => this.appendSettled(streamId, events, expected));
  }

  /**
   * One append, sent again while its outcome is unknown (a timeout or a dropped connection can
   * follow a write that committed). Event ids are deterministic and the expected revision exact,
   * so a resend of a committed append answers with its original result, and of one that did not
   * commit either writes it or meets a definite conflict. Still unknown after the last send: 503.
   */
  private async appendSettled(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const data = events.map(toEventData);
    const expectedRevision = toEsdbExpectedRevision(expected);
    const attempts = Math.max(1, this.options.appendAttempts ?? 4);
    const delay = this.options.appendRetryDelayMs ?? 250;
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, delay * 2 ** (attempt - 1)));
      try {
        const result = await this.client.appendToStream(streamId, data, {
          expectedRevision,
          credentials: this.credentials,
        });
        const nextExpectedRevision = Number(result.nextExpectedRevision);
        const position =
          reportedAppendPosition(result, events.length) ??
          (await this.positionOfRevision(streamId, nextExpectedRevision));
        this.sawPosition(position);
        return { nextExpectedRevision, position };
      } catch (error) {
        const conflict = toConcurrencyError(error, streamId, expected);
        if (conflict) throw conflict;
        const storageFault = toEsdbStorageFault(error); // refused for its disk: definite, nothing written
        if (storageFault) throw storageFault;
        if (!isUnknownAppendOutcome(error)) throw error;
        lastError = error;
      }
    }
    throw new StoreUnavailableError(
      `append to ${streamId}: outcome unknown after ${attempts} attempts (${errorText(lastError)})`,
      5,
      lastError,
    );
  }

  private async positionOfRevision(streamId: string, revision: number): Promise<number> {
    const [last] = await this.collect(
      this.client.readStream(streamId, { fromRevision: BigInt(revision), maxCount: 1 }),
      `read of ${streamId}@${revision}`,
    );
    const position = last ? rawPosition(last) : undefined;
    if (position === undefined) throw new Error(`cannot find the position of ${streamId}@${revision}`);
    return position;
  }

  /**
   * Reads a finite client stream to the end, within our deadline. A stream that ends because the
   * client was disposed under it would look complete: that is an error, never a short list.
   */
  private async collect(
    read: EsdbReadable,
    what: string,
    deadlineMs = this.readDeadline(),
  ): Promise<EsdbResolvedEvent[]> {
    // A late 'error' after the iterator detached would otherwise be an uncaught exception.
    read.on('error', noop);
    const timer = setTimeout(() => read.destroy(new ReadDeadlineError(what, deadlineMs)), deadlineMs);
    try {
      const out: EsdbResolvedEvent[] = [];
      for await (const item of read) out.push(item);
      if (this.disposed) throw new Error(`event store closed during the ${what}`);
      return out;
    } finally {
      clearTimeout(timer);
    }
  }

  private readDeadline(): number {
    return this.options.readDeadlineMs ?? 10_000;
  }

  readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    return this.track(async () => {
      const raw = await this.readStreamRaw(streamId, { fromRevision: BigInt(fromRevision) });
      return raw.map(toRecordedEvent).filter((e): e is RecordedEvent => e !== null);
    });
  }

  private async readStreamRaw(
    streamId: string,
    options: Parameters<EsdbClient['readStream']>[1],
  ): Promise<EsdbResolvedEvent[]> {
    try {
      return await this.collect(this.client.readStream(streamId, options), `read of ${streamId}`);
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
  }

  /**
   * 6.2.1's readAll takes no server-side filter (only subscriptions do), so: a streamId filter
   * reads that stream itself (exact, server-side), otherwise $all is paged and post-filtered:
   * one pass however many `types` are asked for.
   */
  readAll(o: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.track(async () => {
      if (o.limit <= 0) return [];
      try {
        if (o.streamId !== undefined) return await this.readAllOfStream({ ...o, streamId: o.streamId });
        return await this.readAllPages(o);
      } catch (error) {
        // An `after` that is no record's position (from another store, or made up).
        if (isInvalidPosition(error)) throw new InvalidPositionError(o.after);
        throw error;
      }
    });
  }

  private async readAllPages(o: ReadAllOptions): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const types = typeFilter(o);
    let cursor = o.after;
    const pageSize = Math.min(Math.max(o.limit, PAGE), 4096);
    for (;;) {
      const page = await this.collect(
        this.client.readAll({ fromPosition: toReadPosition(cursor), maxCount: pageSize }),
        'read of $all',
      );
      let progressed = false;
      for (const raw of page) {
        const position = rawPosition(raw);
        // Reads from {p, p} include the event at p; `after` is exclusive.
        if (position === undefined || position <= cursor) continue;
        cursor = position;
        progressed = true;
        const event = toRecordedEvent(raw);
        if (event && (types === undefined || types.has(event.type))) {
          out.push(event);
          if (out.length >= o.limit) return out;
        }
      }
      if (page.length < pageSize || !progressed) return out;
    }
  }

  /** The stream's events after `o.after`, read from the first revision past it (not from 0). */
  private async readAllOfStream(o: ReadAllOptions & { streamId: string }): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const types = typeFilter(o);
    let from = await this.firstRevisionAfter(o.streamId, o.after);
    while (from !== null) {
      const page = await this.readStreamRaw(o.streamId, { fromRevision: BigInt(from), maxCount: PAGE });
      for (const raw of page) {
        const event = toRecordedEvent(raw);
        if (!event || event.position <= o.after || (types !== undefined && !types.has(event.type))) continue;
        out.push(event);
        if (out.length >= o.limit) return out;
      }
      const last = page[page.length - 1]?.event;
      from = page.length < PAGE || !last ? null : Number(last.revision) + 1;
    }
    return out;
  }

  /**
   * Positions grow with revisions inside a stream, so the first revision past a position is found
   * by bisection over one-event reads: a few round trips instead of reading the stream from 0.
   */
  private async firstRevisionAfter(streamId: string, after: number): Promise<number | null> {
    const [newest] = await this.readStreamRaw(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
    if (!newest?.event || (rawPosition(newest) ?? 0) <= after) return null;
    let low = 0;
    let high = Number(newest.event.revision);
    if (after <= 0) return low;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const [at] = await this.readStreamRaw(streamId, { fromRevision: BigInt(mid), maxCount: 1 });
      const position = at ? rawPosition(at) : undefined;
      if (position !== undefined && position > after) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  /**
   * Newest first, `before` exclusive: a stream read backwards (server-side, exact), or $all read
   * backwards a page at a time and filtered by type as it goes. A `before` that is no record's
   * position is read from the end and cut (made-up numbers are positions on SQLite only).
   */
  readBackward(o: ReadBackwardOptions): Promise<RecordedEvent[]> {
    return this.track(async () => {
      if (o.limit <= 0) return [];
      if (o.streamId !== undefined) return this.readStreamBackward({ ...o, streamId: o.streamId });
      try {
        return await this.readAllBackward(o, o.before >= Number.MAX_SAFE_INTEGER ? END : toReadPosition(o.before));
      } catch (error) {
        if (!isInvalidPosition(error)) throw error;
        return this.readAllBackward(o, END);
      }
    });
  }

  private async readAllBackward(
    o: ReadBackwardOptions,
    start: Parameters<EsdbClient['readAll']>[0]['fromPosition'],
  ): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from = start;
    for (;;) {
      const page = await this.collect(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: PAGE }),
        'backward read of $all',
      );
      for (const raw of page) {
        const position = rawPosition(raw);
        if (position === undefined || position >= o.before) continue;
        const event = toRecordedEvent(raw);
        if (event && (o.type === undefined || event.type === o.type)) {
          out.push(event);
          if (out.length >= o.limit) return out;
        }
      }
      const last = page[page.length - 1];
      const lastPosition = last ? rawPosition(last) : undefined;
      if (page.length < PAGE || lastPosition === undefined) return out;
      // Backward reads exclude the event at the starting position.
      from = toReadPosition(lastPosition);
    }
  }

  private async readStreamBackward(o: ReadBackwardOptions & { streamId: string }): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from: bigint | typeof END = END;
    for (;;) {
      const page = await this.readStreamRaw(o.streamId, { fromRevision: from, direction: BACKWARDS, maxCount: PAGE });
      for (const raw of page) {
        const event = toRecordedEvent(raw);
        if (!event || event.position >= o.before || (o.type !== undefined && event.type !== o.type)) continue;
        out.push(event);
        if (out.length >= o.limit) return out;
      }
      const last = page[page.length - 1]?.event;
      if (page.length < PAGE || !last || last.revision === 0n) return out;
      from = last.revision - 1n;
    }
  }

  /** One single-event read of $all per position, a few at a time. */
  readAt(positions: readonly number[]): Promise<RecordedEvent[]> {
    return this.track(async () => {
      const found = new Map<number, RecordedEvent>();
      const wanted = [...new Set(positions)];
      for (let i = 0; i < wanted.length; i += 16) {
        await Promise.all(
          wanted.slice(i, i + 16).map(async (position) => {
            try {
              const [raw] = await this.collect(
                this.client.readAll({ fromPosition: toReadPosition(position), maxCount: 1 }),
                'read at a position',
              );
              const event = raw && rawPosition(raw) === position ? toRecordedEvent(raw) : null;
              if (event) found.set(position, event);
            } catch (error) {
              // No record starts there (archived and scavenged, or never one): left out.
              if (!isInvalidPosition(error)) throw error;
            }
          }),
        );
      }
      return positions.map((p) => found.get(p)).filter((e): e is RecordedEvent => e !== undefined);
    });
  }

  subscribeToAll(after: number): Subscription {
    return this.feeds.subscribe(after, this.closed);
  }

  /** Whether the feed would deliver the record at `position` (for safeResumePosition). */
  private async recordAt(position: number): Promise<'ours' | 'not-ours' | 'unknown'> {
    try {
      const [record] = await this.track(() =>
        this.collect(this.client.readAll({ fromPosition: toReadPosition(position), maxCount: 1 }), 'checkpoint lookup'),
      );
      if (!record || rawPosition(record) !== position) return 'unknown';
      return toRecordedEvent(record) === null ? 'not-ours' : 'ours';
    } catch {
      return 'unknown'; // resume from the last event instead
    }
  }

  /** A position this instance wrote or read: the head is at least there. */
  private sawPosition(position: number): void {
    if (this.head && position > this.head.position) this.head = { position, at: this.head.at };
  }

  /** The newest of our events; reused for headCacheMs and shared by concurrent callers. */
  headPosition(): Promise<number> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const ttl = this.options.headCacheMs ?? 1000;
    if (this.head && this.now - this.head.at < ttl) return Promise.resolve(this.head.position);
    this.headRead ??= this.track(() => this.readHead()).finally(() => (this.headRead = null));
    return this.headRead;
  }

  private async readHead(): Promise<number> {
    const at = this.now;
    let from: Parameters<EsdbClient['readAll']>[0]['fromPosition'] = END;
    let head = 0;
    for (;;) {
      const page = await this.collect(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: PAGE }),
        'head lookup',
      );
      const ours = page.map(toRecordedEvent).find((e) => e !== null);
      if (ours) {
        head = ours.position;
        break;
      }
      const last = page[page.length - 1];
      const lastPosition = last ? rawPosition(last) : undefined;
      if (page.length < PAGE || lastPosition === undefined) break;
      // Backward reads exclude the event at the starting position.
      from = { commit: BigInt(lastPosition), prepare: BigInt(lastPosition) };
    }
    this.head = { position: Math.max(head, this.head?.position ?? 0), at };
    return this.head.position;
  }

  /** `eventstoredb:` and the id of the first of our events in $all (null while there is none). */
  identity(): Promise<string | null> {
    return this.track(async () => {
      if (this.firstEventId !== null) return `eventstoredb:${this.firstEventId}`;
      const [first] = await this.readAllPages({ after: 0, limit: 1 });
      if (!first) return null;
      this.firstEventId = first.metadata.eventId;
      return `eventstoredb:${this.firstEventId}`;
    });
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('event store is closed');
    await this.collect(
      this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }),
      'ping',
      Math.min(5000, this.readDeadline()),
    );
  }

  /** Refuses new calls, ends the feeds, lets appends and reads in flight finish, then disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.feeds.closeAll();
    await Promise.allSettled([...this.inFlight]);
    this.disposed = true;
    await this.client.dispose();
  }
}
