import type { CommandContext, DomainEvent } from '../events/envelope';
import type { ExpectedRevision } from '../event-store/event-store.port';
import type { Decider, DecisionResult } from './decider';
import { retryOnConflict, type RetryPolicy } from './retry-policy';

/** What the handler reads and appends through: EventStreams (declared here, so neither file imports the other). */
export interface SnapshotStreams {
  readFrom<E extends DomainEvent>(
    streamId: string,
    fromRevision: number,
  ): Promise<{ events: E[]; lastRevision: number | null }>;
  append(
    streamId: string,
    events: readonly DomainEvent[],
    expected: ExpectedRevision,
    context: CommandContext,
  ): Promise<{ position: number }>;
}

interface Snapshot<S> {
  state: S;
  /** Revision of the last event folded into `state`; -1 before the first. */
  revision: number;
  /** Approximate bytes: what the events folded into it weighed (an upper bound of the state's size). */
  bytes: number;
}

/** Bounds of the kept states: how many streams, and how many approximate bytes in all. */
export interface SnapshotBounds {
  capacity: number;
  maxBytes: number;
}

/** Two bytes per character of the event's JSON, as the store's caches weigh rows. */
const weigh = (event: DomainEvent): number => 2 * (JSON.stringify(event.data)?.length ?? 0) + 64;

/**
 * The load-decide-append loop of DeciderCommandHandler for streams too long to replay per
 * command (an account's limits: every property it ever had). Each stream's folded state stays in
 * memory with the revision it stands at; a command reads only the events after it (appended by
 * another instance, or not yet folded), decides, appends expecting that revision, and folds its own
 * events on. Commands of one stream run one after another in this process, so the kept state is
 * never folded by two at once (and may be folded in place by `evolve`); a conflict with another
 * process reads the new tail and decides again, as the retry policy allows. Bounded by streams and
 * by bytes (a state can hold every property definition of an account, options and all): the least
 * recently used streams are dropped until both bounds hold, a state weighing more than a quarter
 * of the bytes is not kept, and a dropped stream is replayed whole on its next command.
 */
export class SnapshottingDeciderHandler<S, C, E extends DomainEvent, R = unknown> {
  private readonly snapshots = new Map<string, Snapshot<S>>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private total = 0;

  constructor(
    private readonly streams: SnapshotStreams,
    private readonly decider: Decider<S, C, E, R>,
    private readonly policy: RetryPolicy,
    private readonly bounds: SnapshotBounds,
  ) {}

  /** Approximate bytes of the kept states (tests, metrics). */
  get keptBytes(): number {
    return this.total;
  }

  /** The decider's `plan` when it has one: then the result also says what the appended decision rejected. */
  handle(streamId: string, command: C, context: CommandContext): Promise<DecisionResult<S, E, R>> {
    const previous = this.queues.get(streamId) ?? Promise.resolve();
    const run = previous.then(
      () => this.decideInTurn(streamId, command, context),
      () => this.decideInTurn(streamId, command, context),
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

  private decideInTurn(streamId: string, command: C, context: CommandContext): Promise<DecisionResult<S, E, R>> {
    return retryOnConflict(streamId, this.policy, async () => {
      const snapshot = await this.catchUp(streamId);
      const { events, rejected } = this.decider.plan
        ? this.decider.plan(command, snapshot.state)
        : { events: this.decider.decide(command, snapshot.state), rejected: [] };
      if (events.length === 0) return { state: snapshot.state, events, position: 0, rejected };
      const expected = snapshot.revision < 0 ? 'no_stream' : snapshot.revision;
      const { position } = await this.streams.append(streamId, events, expected, context);
      let state = snapshot.state;
      let bytes = snapshot.bytes;
      for (const e of events) {
        state = this.decider.evolve(state, e);
        bytes += weigh(e);
      }
      this.remember(streamId, { state, revision: snapshot.revision + events.length, bytes });
      return { state, events, position, rejected };
    });
  }

  /** The kept state brought up to the stream's head (a fresh fold when none is kept). */
  private async catchUp(streamId: string): Promise<Snapshot<S>> {
    const kept = this.snapshots.get(streamId);
    let snapshot = kept ?? { state: this.decider.initialState(), revision: -1, bytes: 0 };
    try {
      const { events, lastRevision } = await this.streams.readFrom<E>(streamId, snapshot.revision + 1);
      let state = snapshot.state;
      let bytes = snapshot.bytes;
      for (const e of events) {
        state = this.decider.evolve(state, e);
        bytes += weigh(e);
      }
      snapshot = { state, revision: lastRevision ?? snapshot.revision, bytes };
    } catch (error) {
      this.forget(streamId); // half folded: start over next time
      throw error;
    }
    this.remember(streamId, snapshot);
    return snapshot;
  }

  private remember(streamId: string, snapshot: Snapshot<S>): void {
    this.forget(streamId);
    const { capacity, maxBytes } = this.bounds;
    if (capacity <= 0 || snapshot.bytes > maxBytes / 4) return;
    this.snapshots.set(streamId, snapshot);
    this.total += snapshot.bytes;
    // Least recently used first (the Map's order), until both bounds hold.
    while (this.snapshots.size > capacity || this.total > maxBytes) this.forget(this.snapshots.keys().next().value!);
  }

  private forget(streamId: string): void {
    const kept = this.snapshots.get(streamId);
    if (kept === undefined) return;
    this.snapshots.delete(streamId);
    this.total -= kept.bytes;
  }
}
