import type { CommandContext, DomainEvent } from '../events/envelope';
import type { ArchivedEvents } from '../event-store/event-store.port';
import { fold, type Decider } from './decider';
import type { EventStreams } from './event-streams';
import { retryOnConflict, type RetryPolicy } from './retry-policy';

export interface DecisionResult<S, E extends DomainEvent, R = unknown> {
  /** State after the new events. */
  state: S;
  /** The events this command appended ([] when it decided nothing needed to happen). */
  events: E[];
  /** Global position of the last appended event; 0 when nothing was appended. */
  position: number;
  /** What the decision that was appended rejected (a decider with `plan`; snapshotted streams only). */
  rejected?: R[];
}

/**
 * One decider bound to the store: load the aggregate's own stream, decide, append with the
 * expected revision; on a concurrency conflict decide again on the new state, as the retry policy
 * allows, then 409. Every `@CommandHandler` that changes one stream delegates to one of these
 * (in the spirit of Emmett's DeciderCommandHandler).
 */
export class DeciderCommandHandler<S, C, E extends DomainEvent> {
  constructor(
    private readonly streams: EventStreams,
    private readonly decider: Decider<S, C, E>,
    private readonly policy: RetryPolicy,
  ) {}

  /**
   * `archived`: the decided events record an archive batch; the append also removes the batch's
   * events from the live store (EventStreams.appendRemovingArchived). Retrying is safe: SQLite
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
