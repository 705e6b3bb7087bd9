/** Time source. Injected everywhere so tests are deterministic (no sleeps, no Date.now in domain code). */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/**
 * Elapsed time that never steps: what lock and window durations are measured with, so a wall-clock
 * step (NTP, an operator) neither stretches a lock nor ends it early.
 */
export interface MonotonicClock {
  /** Milliseconds since an arbitrary origin; never goes backwards. */
  elapsedMs(): number;
}

export const CLOCK = Symbol('CLOCK');
export const MONOTONIC_CLOCK = Symbol('MONOTONIC_CLOCK');

export const systemClock: Clock = { now: () => Date.now() };
export const systemMonotonicClock: MonotonicClock = { elapsedMs: () => performance.now() };

/**
 * A clock tests move by hand. `advance` is time passing (wall and elapsed time both move); `set` is
 * a step of the wall clock only, as when a host's clock is corrected.
 */
export class ManualClock implements Clock, MonotonicClock {
  private elapsed = 0;
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  elapsedMs(): number {
    return this.elapsed;
  }
  advance(ms: number): void {
    this.current += ms;
    this.elapsed += Math.max(0, ms);
  }
  set(ms: number): void {
    this.current = ms;
  }
}

/**
 * Wall time that a forward step of the wall clock does not move on: never later than the wall time
 * at creation plus the monotonic time elapsed since. For decisions that must not be hurried by a
 * clock set ahead (archiving a token's history before the token really expired).
 */
export function steadyWallTime(clock: Clock, monotonic: MonotonicClock): () => number {
  const wallAtStart = clock.now();
  const elapsedAtStart = monotonic.elapsedMs();
  return () => Math.min(clock.now(), wallAtStart + (monotonic.elapsedMs() - elapsedAtStart));
}
