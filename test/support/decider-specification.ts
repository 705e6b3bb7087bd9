import type { Decider } from '../../src/platform/commands/decider';
import { fold } from '../../src/platform/commands/decider';
import type { DomainEvent } from '../../src/platform/events/envelope';

/**
 * The one decider specification of the test suite (after Emmett's DeciderSpecification):
 *
 *   const spec = DeciderSpecification.for(legacyCardDecider);
 *   spec.given([created]).when({ type: 'Delete', ... }).then([deleted]);
 *   spec.given([]).when(command).thenThrows((e) => e instanceof HubSpotError && e.status === 404);
 *
 * `given` folds past events through `evolve`; `when` runs `decide` on that state; `then` compares
 * the decided events exactly, `thenNothing` expects none, `thenThrows` expects an error (optionally
 * matched by a predicate), `thenState` checks the state after the decided events.
 */
export class DeciderSpecification<S, C, E extends DomainEvent> {
  private constructor(private readonly decider: Decider<S, C, E>) {}

  static for<S, C, E extends DomainEvent>(decider: Decider<S, C, E>): DeciderSpecification<S, C, E> {
    return new DeciderSpecification(decider);
  }

  given(events: readonly E[] = []): { when: (command: C) => Then<S, E> } {
    const state = fold(this.decider.evolve, this.decider.initialState(), events);
    return {
      when: (command: C) => {
        let outcome: { events: E[] } | { error: unknown };
        try {
          outcome = { events: this.decider.decide(command, state) };
        } catch (error) {
          outcome = { error };
        }
        return new Then(this.decider, state, outcome);
      },
    };
  }
}

export class Then<S, E extends DomainEvent> {
  constructor(
    private readonly decider: Pick<Decider<S, never, E>, 'evolve'>,
    private readonly state: S,
    private readonly outcome: { events: E[] } | { error: unknown },
  ) {}

  /** The decided events, exactly; returns them for further checks. */
  then(expected: readonly E[]): E[] {
    const events = this.events();
    expect(events).toEqual(expected);
    return events;
  }

  thenNothing(): void {
    expect(this.events()).toEqual([]);
  }

  /** Decided without error; returns the events for checks that do not compare whole events (random ids). */
  events(): E[] {
    if ('error' in this.outcome) throw new Error(`expected events, decide threw: ${String(this.outcome.error)}`);
    return this.outcome.events;
  }

  /** The state after the decided events. */
  thenState(check: (state: S) => void): void {
    check(fold(this.decider.evolve, this.state, this.events()));
  }

  thenThrows<T = unknown>(match?: ((error: T) => boolean) | (new (...args: never[]) => T)): T {
    if (!('error' in this.outcome)) {
      throw new Error(`expected an error, decide returned ${JSON.stringify(this.outcome.events)}`);
    }
    const error = this.outcome.error as T;
    if (match) {
      const ok =
        match.prototype !== undefined && /^class\s/.test(Function.prototype.toString.call(match))
          ? error instanceof (match as new (...args: never[]) => T)
          : (match as (error: T) => boolean)(error);
      if (!ok) throw new Error(`decide threw an error that does not match: ${String(error)}`);
    }
    return error;
  }
}
