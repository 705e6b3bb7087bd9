import { randomUUIDv7 } from 'node:crypto';
import type { Clock } from '../clock';
import type { CommandContext, DomainEvent, NewEvent } from '../events/envelope';
import { eventTypes } from '../events/event-type-registry';
import {
  type AppendResult,
  type ArchivedEvents,
  type ExpectedRevision,
  type StreamStore,
} from '../event-store/event-store.port';
import { ConcurrencyError } from '../event-store/concurrency-error';
import { fold, type Decider, type DecisionResult } from './decider';

export type { DecisionResult } from './decider';
import { type SnapshotBounds, SnapshottingDeciderHandler } from './snapshotting-decider-handler';
import { DEFAULT_RETRY_POLICY, retryOnConflict, type RetryPolicy } from './retry-policy';

export interface LoadedStream<S> {
  state: S;
  /** What an append must expect for this state to still hold. */
  expected: ExpectedRevision;
  /** Global position of the stream's newest event; 0 when the stream does not exist. */
  position: number;
}

export interface Appended {
  /** Global position of the last appended event. */
  position: number;
}

export interface PendingAppend {
  streamId: string;
  events: readonly DomainEvent[];
  expected: ExpectedRevision;
}

/**
 * The write side's access to the event store, for command handlers only: load a stream folded
 * through a decider (events decoded and upcast by the registry), append decided events with an
 * expected revision. Envelopes (event id, correlation, causation, actor, time) are made here and
 * nowhere else. Nothing is published in process: read models and reactors tail the store's
 * checkpointed feed, which has every acknowledged append.
 * Store properties stay behind this class (see appendInOrder).
 * Framework-free, so a worker thread uses it too (the webhooks' delivery thread); the API's
 * handlers get it as the provider EventStreams (event-streams.ts).
 */
export class StreamAccess {
  constructor(
    private readonly store: StreamStore,
    private readonly clock: Clock,
  ) {}

  /** Binds a decider once: the one generic load-decide-append-retry handler for its streams. */
  forDecider<S, C, E extends DomainEvent>(
    decider: Decider<S, C, E>,
    policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  ): DeciderCommandHandler<S, C, E> {
    return new DeciderCommandHandler(this, decider, policy);
  }

  /**
   * As forDecider, for long streams: each stream's folded state is kept in memory (at most
   * `capacity` streams) and only the events after it are read (see SnapshottingDeciderHandler).
   */
  forSnapshottedDecider<S, C, E extends DomainEvent, R = unknown>(
    decider: Decider<S, C, E, R>,
    policy: RetryPolicy,
    bounds: SnapshotBounds,
  ): SnapshottingDeciderHandler<S, C, E, R> {
    return new SnapshottingDeciderHandler(this, decider, policy, bounds);
  }

  async load<S, E extends DomainEvent>(
    streamId: string,
    decider: Pick<Decider<S, never, E>, 'initialState' | 'evolve'>,
  ): Promise<LoadedStream<S>> {
    const history = await this.store.readStream(streamId);
    const last = history[history.length - 1];
    return {
      state: fold(decider.evolve, decider.initialState(), eventTypes.decodeStream<E>(history)),
      expected: last ? last.revision : 'no_stream',
      position: last ? last.position : 0,
    };
  }

  /** The stream's events from `fromRevision` on, decoded: what a snapshot taken before them lacks. */
  async readFrom<E extends DomainEvent>(
    streamId: string,
    fromRevision: number,
  ): Promise<{ events: E[]; lastRevision: number | null }> {
    const recorded = await this.store.readStream(streamId, fromRevision);
    const last = recorded[recorded.length - 1];
    return { events: eventTypes.decodeStream<E>(recorded), lastRevision: last ? last.revision : null };
  }

  /** Appends; throws ConcurrencyError when `expected` no longer holds. */
  async append(
    streamId: string,
    events: readonly DomainEvent[],
    expected: ExpectedRevision,
    context: CommandContext,
  ): Promise<Appended> {
    return this.appendWith(streamId, events, expected, context, null);
  }

  /**
   * Appends the record of an archive batch and removes the batch's events from the live store, the
   * store's own way (its `retention`: one transaction on SQLite, `$tb` first on EventStoreDB).
   */
  async appendRemovingArchived(
    streamId: string,
    events: readonly DomainEvent[],
    expected: ExpectedRevision,
    context: CommandContext,
    archived: ArchivedEvents,
  ): Promise<Appended> {
    return this.appendWith(streamId, events, expected, context, archived);
  }

  private async appendWith(
    streamId: string,
    events: readonly DomainEvent[],
    expected: ExpectedRevision,
    context: CommandContext,
    archived: ArchivedEvents | null,
  ): Promise<Appended> {
    const envelopes = events.map((e) => this.envelope(e, context));
    // Stored in the type's storage shape (hot types are stored smaller).
    // Types without a codec come back unchanged: their envelope is stored as it is, not copied.
    const stored = envelopes.map((e) => {
      const data = eventTypes.encode(e.type, e.data, streamId);
      return data === e.data ? e : { ...e, data };
    });
    let result: AppendResult;
    if (archived === null) result = await this.store.append(streamId, stored, expected);
    else if (this.store.retention)
      result = await this.store.retention.appendRemovingArchived(streamId, stored, expected, archived);
    else throw new Error(`the ${this.store.kind} store does not remove archived events (see docs/retention.md)`);
    return { position: result.position };
  }

  /**
   * Appends to several streams where each must take effect no earlier than the one before it (a
   * refresh token stored before its code is marked redeemed). A store that applies appends in call
   * order lets them go together and usually share one commit; any other store waits for each.
   * Not atomic: an append that fails does not undo the earlier ones. Settles once all have settled
   * and rethrows the first failure.
   */
  async appendInOrder(appends: readonly PendingAppend[], context: CommandContext): Promise<Appended[]> {
    if (!this.store.appendsInCallOrder) {
      const results: Appended[] = [];
      for (const a of appends) results.push(await this.append(a.streamId, a.events, a.expected, context));
      return results;
    }
    const settled = await Promise.allSettled(
      appends.map((a) => this.append(a.streamId, a.events, a.expected, context)),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<Appended>).value);
  }

  /** Wraps a domain event in its envelope: explicit type, data, and metadata. */
  private envelope(event: DomainEvent, context: CommandContext): NewEvent {
    return {
      type: event.type,
      data: event.data,
      metadata: {
        // Time-ordered (RFC 9562 v7): new ids land at the end of the store's event-id index
        // instead of on a random page, which makes a group commit write far fewer pages.
        eventId: randomUUIDv7(),
        correlationId: context.correlationId,
        causationId: context.causationId ?? null,
        actor: context.actor,
        occurredAt: this.clock.now(),
      },
    };
  }
}

/**
 * One decider bound to the store: load the aggregate's own stream, decide, append with the
 * expected revision; on a concurrency conflict decide again on the new state, as the retry policy
 * allows, then 409. Every `@CommandHandler` that changes one stream delegates to one of these
 * (in the spirit of Emmett's DeciderCommandHandler).
 */
export class DeciderCommandHandler<S, C, E extends DomainEvent> {
  constructor(
    private readonly streams: StreamAccess,
    private readonly decider: Decider<S, C, E>,
    private readonly policy: RetryPolicy,
  ) {}

  /**
   * `archived`: the decided events record an archive batch; the append also removes the batch's
   * events from the live store (StreamAccess.appendRemovingArchived). Retrying is safe: SQLite
   * deletes in the append's transaction and EventStoreDB's `$tb` is idempotent.
   */
  handle(
    streamId: string,
    command: C,
    context: CommandContext,
    policy: RetryPolicy = this.policy,
    archived?: ArchivedEvents,
  ): Promise<DecisionResult<S, E>> {
    return retryOnConflict(streamId, policy, async () => {
      const { state, expected } = await this.streams.load(streamId, this.decider);
      const events = this.decider.decide(command, state);
      if (events.length === 0) return { state, events, position: 0 };
      const { position } = archived
        ? await this.streams.appendRemovingArchived(streamId, events, expected, context, archived)
        : await this.streams.append(streamId, events, expected, context);
      return { state: fold(this.decider.evolve, state, events), events, position };
    });
  }

  /**
   * For a stream that is new in the usual case but may exist (a unique value's first claim): decide
   * on the initial state and append expecting `no_stream`, with no store read; when the stream
   * exists after all, the append is refused and the command is handled as `handle` does (load,
   * decide on the real state, append, retry). The same decision as `handle`, without its read.
   */
  async handleProbablyNew(streamId: string, command: C, context: CommandContext): Promise<DecisionResult<S, E>> {
    try {
      return await this.handleNew(streamId, command, context);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      return this.handle(streamId, command, context);
    }
  }

  /**
   * For a stream named by a fresh random id (an access token's): there is nothing to load, so
   * decide on the initial state and append expecting `no_stream` — no store read on the hot path.
   * A collision of fresh ids is a ConcurrencyError, not retried: it cannot happen by chance.
   */
  async handleNew(streamId: string, command: C, context: CommandContext): Promise<DecisionResult<S, E>> {
    const state = this.decider.initialState();
    const events = this.decider.decide(command, state);
    if (events.length === 0) return { state, events, position: 0 };
    const { position } = await this.streams.append(streamId, events, 'no_stream', context);
    return { state: fold(this.decider.evolve, state, events), events, position };
  }
}
