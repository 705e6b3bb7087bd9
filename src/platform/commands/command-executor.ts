import { randomUUIDv7 } from 'node:crypto';
import { Subject } from 'rxjs';
import type { Clock } from '../clock';
import type { CommandContext, DomainEvent, NewEvent, RecordedEvent } from '../events/envelope';
import { ConcurrencyError } from '../event-store/concurrency-error';
import type { EventStore } from '../event-store/event-store.port';
import { ConcurrencyConflictError } from './concurrency-conflict-error';
import { fold } from './decider';

export interface ExecuteResult<S, E extends DomainEvent> {
  /** State after the new events. */
  state: S;
  /** The events this command appended ([] when it decided nothing needed to happen). */
  events: E[];
  /** Global position of the last appended event; 0 when nothing was appended. */
  position: number;
}

export interface ExecuteOptions {
  /**
   * Loads-decides-appends before giving up with ConcurrencyConflictError (default: the
   * executor's own). Streams that many requests write at once (one account's limits) ask for more.
   */
  maxAttempts?: number;
}

/** Longest pause between two attempts, in event-loop turns (no timers: the clock plays no part). */
const MAX_BACKOFF_TURNS = 8;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface StreamHandler<S, E extends DomainEvent> {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
}

/**
 * The write side's one loop: load the aggregate's own stream, decide, append with the expected
 * revision; on a concurrency conflict yield a few event-loop turns (jittered, so the writers that
 * collided do not collide again in lockstep), reload and decide again, a bounded number of times,
 * then ConcurrencyConflictError (409).
 * Appended events are published in-process only after the store acknowledged them.
 */
export class CommandExecutor {
  readonly published = new Subject<RecordedEvent>();

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly maxAttempts = 5,
  ) {}

  async execute<S, E extends DomainEvent>(
    streamId: string,
    handler: StreamHandler<S, E>,
    decide: (state: S) => E[],
    context: CommandContext,
    options: ExecuteOptions = {},
  ): Promise<ExecuteResult<S, E>> {
    const maxAttempts = options.maxAttempts ?? this.maxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts ${maxAttempts}`);
    for (let attempt = 1; ; attempt++) {
      const history = await this.store.readStream(streamId);
      const state = fold(handler.evolve, handler.initialState(), history as unknown as E[]);
      const events = decide(state);
      if (events.length === 0) return { state, events, position: 0 };
      const expected = history.length === 0 ? 'no_stream' : history[history.length - 1]!.revision;
      const envelopes = events.map((e) => this.envelope(e, context));
      try {
        const result = await this.store.append(streamId, envelopes, expected);
        envelopes.forEach((e, i) =>
          this.published.next({
            ...e,
            streamId,
            revision: result.nextExpectedRevision - envelopes.length + 1 + i,
            position: result.position - envelopes.length + 1 + i,
          }),
        );
        return { state: fold(handler.evolve, state, events), events, position: result.position };
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
        if (attempt >= maxAttempts) throw new ConcurrencyConflictError(streamId, attempt);
        await this.backoff(attempt);
      }
    }
  }

  /** 0 to min(attempt, MAX_BACKOFF_TURNS) event-loop turns, at random. */
  private async backoff(attempt: number): Promise<void> {
    const turns = Math.floor(Math.random() * (Math.min(attempt, MAX_BACKOFF_TURNS) + 1));
    for (let i = 0; i < turns; i++) await nextTurn();
  }

  /** Wraps domain events in envelopes: explicit type, data, and metadata. */
  envelope(event: DomainEvent, context: CommandContext): NewEvent {
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

export const COMMAND_EXECUTOR = Symbol('COMMAND_EXECUTOR');
