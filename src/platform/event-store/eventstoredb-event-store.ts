import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
} from '@eventstore/db-client';
import type {
  AllStreamSubscription,
  AppendExpectedRevision,
  AppendResult as EsdbAppendResult,
  JSONEventData,
  JSONType,
  Position,
  ReadPosition,
} from '@eventstore/db-client';
import { createHash } from 'node:crypto';
import type { EventMetadata, NewEvent, RecordedEvent } from '../events/envelope';
import { ConcurrencyError } from './concurrency-error';
import type { AppendResult, EventStore, ExpectedRevision, ReadAllOptions, Subscription } from './event-store.port';

/*
 * Global positions.
 *
 * Our port wants one strictly increasing number per event; ESDB has a (commit, prepare) pair.
 * ASSUMPTION: for ordinary appends (implicit transactions — the only kind the gRPC API can write)
 * the server reports commit === prepare === the event's own log position, so Number(commit) alone
 * identifies an event and converts back to {commit: p, prepare: p}. Only legacy TCP explicit
 * transactions share a commit position between events; we never write those. Number() is exact
 * while the log is below 2^53 bytes (~9 PB).
 */

/** The subset of the client's resolved events we read; structural so tests need no server. */
export interface EsdbResolvedEvent {
  event?: {
    streamId: string;
    type: string;
    isJson: boolean;
    revision: bigint;
    data: unknown;
    metadata: unknown;
    position?: Position;
  };
  commitPosition?: bigint;
}

export const toEsdbExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`expected revision must be a non-negative integer, got ${String(expected)}`);
      }
      return BigInt(expected);
  }
};

/** A revision mismatch as our store-neutral error; null for any other error. */
export const toConcurrencyError = (
  error: unknown,
  streamId: string,
  expected: ExpectedRevision,
): ConcurrencyError | null => {
  const isWrongVersion =
    error instanceof WrongExpectedVersionError ||
    (typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'wrong-expected-version');
  if (!isWrongVersion) return null;
  const actual = (error as { actualVersion?: unknown }).actualVersion;
  const current = typeof actual === 'bigint' && actual >= 0n ? Number(actual) : 'no_stream';
  return new ConcurrencyError(streamId, expected, current);
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Fixed forever: changing it would give re-appended events new ids and break idempotency.
const EVENT_ID_NAMESPACE = Buffer.from('3b0d6a8e5f2c4e7d9a41c6f0b2e8d915', 'hex');

/**
 * ESDB event ids must be UUIDs. Ours usually are; any other id is mapped to a name-based (v5-style)
 * UUID so the mapping is deterministic and re-appends stay idempotent. The original id is kept in
 * our metadata either way.
 */
export const toEsdbEventId = (eventId: string): string => {
  if (UUID_PATTERN.test(eventId)) return eventId.toLowerCase();
  const hash = createHash('sha1').update(EVENT_ID_NAMESPACE).update(eventId, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Data as the JSON body, our metadata object as the JSON metadata, our event id as the ESDB id. */
export const toEventData = (event: NewEvent): JSONEventData => ({
  id: toEsdbEventId(event.metadata.eventId),
  contentType: 'application/json',
  type: event.type,
  data: event.data as JSONType,
  metadata: { ...event.metadata },
});

/** Number(commit), refusing values that are absent (old servers report 2^64-1) or not exact. */
export const toGlobalPosition = (position: Position | undefined): number | undefined => {
  if (!position) return undefined;
  const commit = position.commit;
  if (commit < 0n || commit > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(commit);
};

/** `after` back to an ESDB position (see the assumption above); 0 means the start of $all. */
export const toReadPosition = (after: number): ReadPosition =>
  after <= 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };

/** System events ($-types such as $metadata, $> links) never reach our feed. */
export const isSystemEvent = (streamId: string, type: string): boolean =>
  type.startsWith('$') || streamId.startsWith('$');

const isEnvelopeMetadata = (value: unknown): value is EventMetadata =>
  typeof value === 'object' &&
  value !== null &&
  !(value instanceof Uint8Array) &&
  typeof (value as { eventId?: unknown }).eventId === 'string';

/** Position of a raw read result, whether or not it is one of our events. */
export const rawPosition = (resolved: EsdbResolvedEvent): number | undefined =>
  toGlobalPosition(resolved.event?.position) ??
  (resolved.commitPosition !== undefined
    ? toGlobalPosition({ commit: resolved.commitPosition, prepare: resolved.commitPosition })
    : undefined);

/**
 * Our envelope from an ESDB event. Null for system events and for events this service did not write
 * (not JSON, or metadata without an eventId), so a shared server's other tenants do not break us.
 */
export const toRecordedEvent = (resolved: EsdbResolvedEvent): RecordedEvent | null => {
  const e = resolved.event;
  if (!e || isSystemEvent(e.streamId, e.type) || !e.isJson || !isEnvelopeMetadata(e.metadata)) return null;
  const position = rawPosition(resolved);
  if (position === undefined) {
    throw new Error(
      `EventStoreDB did not report the log position of ${e.streamId}@${e.revision} (server 22.6 or later required)`,
    );
  }
  return {
    streamId: e.streamId,
    revision: Number(e.revision),
    position,
    type: e.type,
    data: e.data,
    metadata: e.metadata,
  };
};

/**
 * The position the server reported for an append, when it is certainly our last event's. For a
 * multi-event append the reported value may be the transaction's first record, and idempotent
 * replays may report none, so those are read back instead.
 */
export const reportedAppendPosition = (result: EsdbAppendResult, eventCount: number): number | undefined => {
  if (eventCount !== 1) return undefined;
  const position = toGlobalPosition(result.position);
  return position !== undefined && position > 0 ? position : undefined;
};

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 5000 };

/** Delay before resubscribe attempt `attempt` (0-based): initial, doubled each time, capped. */
export const backoffDelay = (attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number => {
  const n = attempt > 0 ? Math.min(Math.floor(attempt), 30) : 0; // NaN and negatives count as the first
  return Math.min(options.maxMs, options.initialMs * 2 ** n);
};

/** The part of an object-mode Readable that inBatches uses (the client's stream types are not `Readable`-assignable). */
export interface BatchSource extends AsyncIterable<unknown> {
  read(): unknown;
}

/**
 * Batches from an object-mode stream: waits (for await) for one item, then takes whatever is
 * already buffered, so a catch-up burst arrives as a few large batches instead of one per event.
 */
export async function* inBatches<T>(source: BatchSource, maxBatch: number): AsyncGenerator<T[]> {
  for await (const first of source) {
    const batch: T[] = [first as T];
    while (batch.length < maxBatch) {
      const next = source.read() as T | null;
      if (next === null) break;
      batch.push(next);
    }
    yield batch;
  }
}

const noop = (): void => undefined;

/** Reads a finite client stream to the end. */
async function collect<T>(
  read: AsyncIterable<T> & { on(event: 'error', listener: (error: Error) => void): unknown },
): Promise<T[]> {
  // A late 'error' after the iterator detached would otherwise be an uncaught exception.
  read.on('error', noop);
  const out: T[] = [];
  for await (const item of read) out.push(item);
  return out;
}

const isStreamNotFound = (error: unknown): boolean =>
  error instanceof StreamNotFoundError ||
  (typeof error === 'object' && error !== null && (error as { type?: unknown }).type === 'stream-not-found');

export interface EventStoreDbEventStoreOptions {
  /** Resubscribe schedule of subscribeToAll after a disconnect or error. */
  backoff?: BackoffOptions;
  /** Told about every subscription failure before the retry (for logs and metrics). */
  onSubscriptionError?: (error: unknown, retryInMs: number) => void;
}

interface FeedState {
  closed: boolean;
  current: AllStreamSubscription | null;
  wake: (() => void) | null;
}

const PAGE = 512;
const MAX_BATCH = 1000;

/** EventStoreDB adapter of the store-neutral port (@eventstore/db-client 6.x, gRPC). */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  /** Concurrent gRPC calls may reach the server in any order. */
  readonly appendsInCallOrder = false;
  private readonly client: EventStoreDBClient;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly feeds = new Set<() => void>();
  private closed = false;

  constructor(
    connection: string | EventStoreDBClient,
    private readonly options: EventStoreDbEventStoreOptions = {},
  ) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    const pending = this.appendNow(streamId, events, expected);
    this.inFlight.add(pending);
    const settle = () => this.inFlight.delete(pending);
    pending.then(settle, settle);
    return pending;
  }

  private async appendNow(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    let result: EsdbAppendResult;
    try {
      // The server checks idempotency by event id natively, so a replay returns success.
      result = await this.client.appendToStream(streamId, events.map(toEventData), {
        expectedRevision: toEsdbExpectedRevision(expected),
      });
    } catch (error) {
      throw toConcurrencyError(error, streamId, expected) ?? error;
    }
    const nextExpectedRevision = Number(result.nextExpectedRevision);
    const position =
      reportedAppendPosition(result, events.length) ?? (await this.positionOfRevision(streamId, nextExpectedRevision));
    return { nextExpectedRevision, position };
  }

  private async positionOfRevision(streamId: string, revision: number): Promise<number> {
    const [last] = await collect(this.client.readStream(streamId, { fromRevision: BigInt(revision), maxCount: 1 }));
    const position = last ? rawPosition(last) : undefined;
    if (position === undefined) throw new Error(`cannot find the position of ${streamId}@${revision}`);
    return position;
  }

  async readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const raw = await this.readStreamRaw(streamId, fromRevision, undefined);
    return raw.map(toRecordedEvent).filter((e): e is RecordedEvent => e !== null);
  }

  private async readStreamRaw(streamId: string, fromRevision: number, maxCount: number | undefined) {
    try {
      return await collect(
        this.client.readStream(streamId, { fromRevision: BigInt(fromRevision), ...(maxCount ? { maxCount } : {}) }),
      );
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
  }

  /**
   * 6.2.1's readAll takes no server-side filter (only subscriptions do), so: a streamId filter
   * reads that stream itself (exact, server-side), otherwise $all is paged and post-filtered.
   */
  async readAll(o: ReadAllOptions): Promise<RecordedEvent[]> {
    if (o.limit <= 0) return [];
    if (o.streamId !== undefined) return this.readAllOfStream({ ...o, streamId: o.streamId });
    const out: RecordedEvent[] = [];
    let cursor = o.after;
    const pageSize = Math.min(Math.max(o.limit, PAGE), 4096);
    for (;;) {
      const page = await collect(this.client.readAll({ fromPosition: toReadPosition(cursor), maxCount: pageSize }));
      let progressed = false;
      for (const raw of page) {
        const position = rawPosition(raw);
        // Reads from {p, p} include the event at p; `after` is exclusive.
        if (position === undefined || position <= cursor) continue;
        cursor = position;
        progressed = true;
        const event = toRecordedEvent(raw);
        if (event && (o.type === undefined || event.type === o.type)) {
          out.push(event);
          if (out.length >= o.limit) return out;
        }
      }
      if (page.length < pageSize || !progressed) return out;
    }
  }

  private async readAllOfStream(o: ReadAllOptions & { streamId: string }): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    let from = 0;
    for (;;) {
      const page = await this.readStreamRaw(o.streamId, from, PAGE);
      for (const raw of page) {
        const event = toRecordedEvent(raw);
        if (!event || event.position <= o.after || (o.type !== undefined && event.type !== o.type)) continue;
        out.push(event);
        if (out.length >= o.limit) return out;
      }
      const last = page[page.length - 1]?.event;
      if (page.length < PAGE || !last) return out;
      from = Number(last.revision) + 1;
    }
  }

  subscribeToAll(after: number): Subscription {
    const state: FeedState = { closed: this.closed, current: null, wake: null };
    const close = () => {
      if (state.closed) return;
      state.closed = true;
      this.feeds.delete(close);
      const sub = state.current;
      state.current = null;
      // Destroying the stream makes the pending `for await` in feed() throw, which ends it.
      if (sub) this.dropSubscription(sub);
      const wake = state.wake;
      state.wake = null;
      wake?.();
    };
    if (!state.closed) this.feeds.add(close);
    const iterator = this.feed(after, state, close);
    return { [Symbol.asyncIterator]: () => iterator, close };
  }

  private async *feed(after: number, state: FeedState, close: () => void): AsyncGenerator<RecordedEvent[]> {
    let position = after;
    let attempt = 0;
    try {
      while (!state.closed) {
        const sub = this.client.subscribeToAll({
          fromPosition: toReadPosition(position),
          filter: excludeSystemEvents(),
        });
        sub.on('error', noop); // errors are seen through the iterator; this only stops late ones crashing us
        state.current = sub;
        try {
          for await (const raw of inBatches<EsdbResolvedEvent>(sub, MAX_BATCH)) {
            attempt = 0;
            const batch: RecordedEvent[] = [];
            for (const r of raw) {
              const event = toRecordedEvent(r);
              // After a resubscribe the server may repeat the event we resumed from.
              if (event && event.position > position) {
                batch.push(event);
                position = event.position;
              }
            }
            if (batch.length === 0) continue;
            yield batch;
            if (state.closed) return;
          }
          // Ended without an error: the server closed the call; resubscribe.
        } catch (error) {
          if (state.closed) return;
          this.options.onSubscriptionError?.(error, backoffDelay(attempt, this.options.backoff));
        } finally {
          if (state.current === sub) state.current = null;
          this.dropSubscription(sub);
        }
        if (state.closed) return;
        await this.sleep(backoffDelay(attempt, this.options.backoff), state);
        attempt += 1;
      }
    } finally {
      close();
    }
  }

  private dropSubscription(sub: AllStreamSubscription): void {
    sub.unsubscribe().catch(noop);
    sub.destroy();
  }

  private sleep(ms: number, state: FeedState): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (state.wake === done) state.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      state.wake = done;
    });
  }

  async headPosition(): Promise<number> {
    let from: ReadPosition = END;
    for (;;) {
      const page: EsdbResolvedEvent[] = await collect(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: PAGE }),
      );
      for (const raw of page) {
        const event = toRecordedEvent(raw);
        if (event) return event.position;
      }
      const last = page[page.length - 1];
      const lastPosition = last ? rawPosition(last) : undefined;
      if (page.length < PAGE || lastPosition === undefined) return 0;
      // Backward reads exclude the event at the starting position.
      from = { commit: BigInt(lastPosition), prepare: BigInt(lastPosition) };
    }
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('event store is closed');
    await collect(this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline: 5000 }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const close of [...this.feeds]) close();
    await Promise.allSettled([...this.inFlight]);
    await this.client.dispose();
  }
}
