import { Inject, Injectable } from '@nestjs/common';
import { CommandExecutor } from '../../platform/commands/command-executor';
import type { StreamHandler } from '../../platform/commands/command-executor';
import { fold } from '../../platform/commands/decider';
import type { CommandContext, DomainEvent } from '../../platform/events/envelope';
import { EVENT_STORE, EventStore, ExpectedRevision } from '../../platform/event-store/event-store.port';

export interface LoadedStream<S> {
  state: S;
  /** What an append must expect for this state to still hold. */
  expected: ExpectedRevision;
}

/**
 * Load / append with an explicit expected revision, for the commands that must decide across
 * streams in a set order (code redemption). Simple single-stream commands use CommandExecutor.execute.
 * Envelopes and in-process publication are the executor's, so events look the same either way.
 */
@Injectable()
export class OAuthStreams {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly executor: CommandExecutor,
  ) {}

  async load<S, E extends DomainEvent>(streamId: string, handler: StreamHandler<S, E>): Promise<LoadedStream<S>> {
    const history = await this.store.readStream(streamId);
    return {
      state: fold(handler.evolve, handler.initialState(), history as unknown as E[]),
      expected: history.length === 0 ? 'no_stream' : history[history.length - 1]!.revision,
    };
  }

  /** Appends (throws ConcurrencyError when `expected` no longer holds); returns the global position. */
  async append(
    streamId: string,
    events: DomainEvent[],
    expected: ExpectedRevision,
    ctx: CommandContext,
  ): Promise<number> {
    const envelopes = events.map((e) => this.executor.envelope(e, ctx));
    const result = await this.store.append(streamId, envelopes, expected);
    envelopes.forEach((e, i) =>
      this.executor.published.next({
        ...e,
        streamId,
        revision: result.nextExpectedRevision - envelopes.length + 1 + i,
        position: result.position - envelopes.length + 1 + i,
      }),
    );
    return result.position;
  }

  /** See EventStore.appendsInCallOrder. */
  get appendsInCallOrder(): boolean {
    return this.store.appendsInCallOrder;
  }

  /** Global position of the stream's newest event; 0 when the stream does not exist. */
  async lastPosition(streamId: string): Promise<number> {
    const history = await this.store.readStream(streamId);
    return history.length === 0 ? 0 : history[history.length - 1]!.position;
  }

  headPosition(): Promise<number> {
    return this.store.headPosition();
  }
}
