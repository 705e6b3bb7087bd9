import type { DomainEvent } from '../events/envelope';

/**
 * A pure aggregate: fold its own stream with `evolve`, answer a command with `decide`
 * (events, or a thrown HubSpotError). No framework, no I/O, no clock: time comes in the command.
 */
export interface Decider<State, Command, Event extends DomainEvent, Refusal = unknown> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
  /**
   * For a command that may be taken in part (a batch): the events of `decide` and the parts it
   * rejected, which are answered and never stored. `plan(c, s).events` equals `decide(c, s)`.
   */
  plan?: (command: Command, state: State) => Planned<Event, Refusal>;
}

export interface Planned<Event, Refusal> {
  events: Event[];
  rejected: Refusal[];
}

export function fold<S, E>(evolve: (s: S, e: E) => S, initial: S, events: readonly E[]): S {
  let state = initial;
  for (const e of events) state = evolve(state, e);
  return state;
}

/** What one command decided and appended, as a bound decider answers it. */
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
