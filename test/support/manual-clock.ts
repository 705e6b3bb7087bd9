import type { Clock, MonotonicClock } from '../../src/platform/clock';

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
