import type { CommandContext, DomainEvent } from '../events/envelope';
import type { Decider } from './decider';
import type { DecisionResult } from './decider-command-handler';
import type { EventStreams } from './event-streams';
import { retryOnConflict, type RetryPolicy } from './retry-policy';

interface Snapshot<S> {
  state: S;
  /** Revision of the last event folded into `state`; -1 before the first. */
  revision: number;
}

/**
 * The load-decide-append loop of DeciderCommandHandler for streams too long to replay per
 * command (an account's limits: every property it ever had). Each stream's folded state stays in
 * memory with the revision it stands at; a command reads only the events after it (appended by
 * another instance, or not yet folded), decides, appends expecting that revision, and folds its own
 * events on. Commands of one stream run one after another in this process, so the kept state is
 * never folded by two at once (and may be folded in place by `evolve`); a conflict with another
 * process reads the new tail and decides again, as the retry policy allows. Bounded: the least
 * recently used stream is dropped past `capacity`, and is replayed whole on its next command.
 */
export class SnapshottingDeciderHandler<S, C, E extends DomainEvent> {
  private readonly snapshots = new Map<string, Snapshot<S>>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly streams: EventStreams,
    private readonly decider: Decider<S, C, E>,
    private readonly policy: RetryPolicy,
    private readonly capacity: number,
  ) {}

  /** `decide` replaces the decider's own for this command (to report more than the events). */
  handle(
    streamId: string,
    command: C,
    context: CommandContext,
    decide: (command: C, state: S) => E[] = this.decider.decide,
  ): Promise<DecisionResult<S, E>> {
    const previous = this.queues.get(streamId) ?? Promise.resolve();
    const run = previous.then(
      () => this.decideInTurn(streamId, command, context, decide),
      () => this.decideInTurn(streamId, command, context, decide),
    );
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(streamId, settled);
    void settled.then(() => {
      if (this.queues.get(streamId) === settled) this.queues.delete(streamId);
    });
    return run;
  }

  private decideInTurn(
    streamId: string,
    command: C,
    context: CommandContext,
    decide: (command: C, state: S) => E[],
  ): Promise<DecisionResult<S, E>> {
    return retryOnConflict(streamId, this.policy, async () => {
      const snapshot = await this.catchUp(streamId);
      const events = decide(command, snapshot.state);
      if (events.length === 0) return { state: snapshot.state, events, position: 0 };
      const expected = snapshot.revision < 0 ? 'no_stream' : snapshot.revision;
      const { position } = await this.streams.append(streamId, events, expected, context);
      let state = snapshot.state;
      for (const e of events) state = this.decider.evolve(state, e);
      this.remember(streamId, { state, revision: snapshot.revision + events.length });
      return { state, events, position };
    });
  }

  /** The kept state brought up to the stream's head (a fresh fold when none is kept). */
  private async catchUp(streamId: string): Promise<Snapshot<S>> {
    const kept = this.snapshots.get(streamId);
    let snapshot = kept ?? { state: this.decider.initialState(), revision: -1 };
    try {
      const { events, lastRevision } = await this.streams.readFrom<E>(streamId, snapshot.revision + 1);
      let state = snapshot.state;
      for (const e of events) state = this.decider.evolve(state, e);
      snapshot = { state, revision: lastRevision ?? snapshot.revision };
    } catch (error) {
      this.snapshots.delete(streamId); // half folded: start over next time
      throw error;
    }
    this.remember(streamId, snapshot);
    return snapshot;
  }

  private remember(streamId: string, snapshot: Snapshot<S>): void {
    this.snapshots.delete(streamId);
    this.snapshots.set(streamId, snapshot);
    if (this.snapshots.size > this.capacity) this.snapshots.delete(this.snapshots.keys().next().value!);
  }
}
