import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  StreamNotFoundError,
  excludeSystemEvents,
  type AllStreamSubscription,
  type AppendResult as EsdbAppendResult,
  type ReadPosition,
} from '@eventstore/db-client';
import type { NewEvent, RecordedEvent } from '../events/envelope';
import type { AppendResult, EventStore, ExpectedRevision, ReadAllOptions, Subscription } from './event-store.port';
import {
  backoffDelay,
  inBatches,
  rawPosition,
  reportedAppendPosition,
  toConcurrencyError,
  toEsdbExpectedRevision,
  toEventData,
  toReadPosition,
  toRecordedEvent,
  type BackoffOptions,
  type EsdbResolvedEvent,
} from './eventstoredb-mapping';
import { toEsdbStorageFault } from './eventstoredb-storage-errors';

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
      throw toConcurrencyError(error, streamId, expected) ?? toEsdbStorageFault(error) ?? error;
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
