import type { RecordedEvent } from '../events/envelope';
import type { Subscription } from './event-store.port';
import { ReadDeadlineError, type EsdbClient, type EsdbSubscription } from './eventstoredb-client';
import { FilterCheckpoint, safeResumePosition, subscriptionFilter } from './eventstoredb-filter-checkpoints';
import {
  backoffDelay,
  classifySubscriptionError,
  inBatches,
  toReadPosition,
  toRecordedEvent,
  type BackoffOptions,
  type EsdbResolvedEvent,
} from './eventstoredb-mapping';
import { FeedFailedError } from './store-errors';

export interface EsdbFeedOptions {
  /** Resubscribe schedule of subscribeToAll after a transient error. */
  backoff?: BackoffOptions;
  /**
   * Told about every subscription failure: `retryInMs` is the delay before resubscribing, or null
   * when the error is not transient and the feed stops (for logs and metrics).
   */
  onSubscriptionError?: (error: unknown, retryInMs: number | null) => void;
  /** Longest a subscription may take to be confirmed by the server before it is retried (default 10 s). */
  subscribeDeadlineMs?: number;
}

interface FeedState {
  closed: boolean;
  current: EsdbSubscription | null;
  wake: (() => void) | null;
}

const MAX_BATCH = 1000;
const noop = (): void => undefined;

/**
 * The EventStoreDB adapter's `subscribeToAll`: one catch-up-then-live subscription per feed, with
 * its resubscribe loop, filter checkpoints and deadline. Apart from the adapter because none of
 * the appends and reads depend on it; the adapter hands in the two things it shares (a one-record
 * lookup and its head cache).
 */
export class EsdbAllFeeds {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly client: Pick<EsdbClient, 'subscribeToAll'>,
    private readonly options: EsdbFeedOptions,
    /** Whether the feed would deliver the record at `position` (for safeResumePosition). */
    private readonly recordAt: (position: number) => Promise<'ours' | 'not-ours' | 'unknown'>,
    /** Told the position of every batch delivered (the head is at least there). */
    private readonly sawPosition: (position: number) => void,
  ) {}

  /** A feed from `after`; one opened on a closed store ends at once. */
  subscribe(after: number, storeClosed: boolean): Subscription {
    const state: FeedState = { closed: storeClosed, current: null, wake: null };
    const close = () => {
      if (state.closed) return;
      state.closed = true;
      this.open.delete(close);
      const sub = state.current;
      state.current = null;
      // Destroying the stream makes the pending `for await` in feed() throw, which ends it.
      if (sub) this.dropSubscription(sub);
      const wake = state.wake;
      state.wake = null;
      wake?.();
    };
    if (!state.closed) this.open.add(close);
    const iterator = this.feed(after, state, close);
    return { [Symbol.asyncIterator]: () => iterator, close };
  }

  /** Ends every open feed (the store is closing). */
  closeAll(): void {
    for (const close of [...this.open]) close();
  }

  /**
   * Catch-up then live from `after`, resubscribing after transient errors (with backoff and a
   * report); an error that resubscribing cannot cure ends the iteration with FeedFailedError.
   */
  private async *feed(after: number, state: FeedState, close: () => void): AsyncGenerator<RecordedEvent[]> {
    let position = after;
    /** A filter checkpoint past `position` whose earlier events were all yielded (see eventstoredb-filter-checkpoints). */
    let checkpoint: number | null = null;
    let attempt = 0;
    try {
      while (!state.closed) {
        const from = await safeResumePosition(position, checkpoint, this.recordAt);
        if (state.closed) return;
        const sub = this.client.subscribeToAll(
          { fromPosition: toReadPosition(from), filter: subscriptionFilter() },
          // The client's default buffer of 16 objects would cap every batch at 16 events.
          { highWaterMark: MAX_BATCH },
        );
        sub.on('error', noop); // errors are seen through the iterator; this only stops late ones crashing us
        state.current = sub;
        const deadlineMs = this.options.subscribeDeadlineMs ?? 10_000;
        const unconfirmed = setTimeout(
          () => sub.destroy(new ReadDeadlineError('subscription', deadlineMs)),
          deadlineMs,
        );
        sub.once('confirmation', () => clearTimeout(unconfirmed));
        try {
          for await (const raw of inBatches<EsdbResolvedEvent | FilterCheckpoint>(sub, MAX_BATCH)) {
            clearTimeout(unconfirmed); // events count as confirmation
            attempt = 0;
            const batch: RecordedEvent[] = [];
            let reached: number | null = null;
            for (const r of raw) {
              if (r instanceof FilterCheckpoint) {
                reached = Math.max(reached ?? 0, r.position);
                continue;
              }
              const event = toRecordedEvent(r);
              // After a resubscribe the server may repeat the event we resumed from.
              if (event && event.position > position) {
                batch.push(event);
                position = event.position;
              }
            }
            if (batch.length > 0) {
              this.sawPosition(position);
              yield batch;
              if (state.closed) return;
            }
            // Everything before the marker is yielded now; a checkpoint at or below our last event says nothing new.
            if (reached !== null && reached > position) checkpoint = reached;
          }
          // Ended without an error: the server closed the call; resubscribe.
        } catch (error) {
          if (state.closed) return;
          if (classifySubscriptionError(error) === 'fatal') {
            this.options.onSubscriptionError?.(error, null);
            throw new FeedFailedError(error);
          }
          this.options.onSubscriptionError?.(error, backoffDelay(attempt, this.options.backoff));
        } finally {
          clearTimeout(unconfirmed);
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

  private dropSubscription(sub: EsdbSubscription): void {
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
}
