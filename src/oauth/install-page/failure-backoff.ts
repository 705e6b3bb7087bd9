import type { Clock } from '../../platform/clock';

export interface FailureBackoffOptions {
  /** Failures allowed before the first lock. */
  free: number;
  /** First lock; each further failure doubles it... */
  baseLockMs: number;
  /** ...up to this bound. */
  maxLockMs: number;
  /** A key with no failure for this long starts again from zero. */
  forgetAfterMs: number;
  /** Keys tracked at most (memory bound); past it the least recently used is forgotten. */
  maxKeys?: number;
  /** Whether a success clears the key's failures (per e-mail yes; per address no). */
  resetOnSuccess: boolean;
}

export type Reservation = { allowed: true } | { allowed: false; retryAfterMs: number };

interface Entry {
  failures: number;
  /** Attempts reserved and not yet settled: counted as failures until they settle. */
  pending: number;
  lockedUntil: number;
  lastFailureAt: number;
}

/**
 * Failed attempts per key with an exponential, bounded lock: `free` failures, then a lock of
 * `baseLockMs` that doubles with each further failure up to `maxLockMs`. An attempt reserves its
 * place before the (slow) password check and counts as a failure until it settles, so parallel
 * attempts cannot all slip through one check-then-record gap; once the free failures are used up,
 * only one attempt at a time runs between locks. The map is kept in least-recently-used order, so
 * idle keys are dropped from its front in amortised O(1).
 */
export class FailureBackoff {
  private readonly entries = new Map<string, Entry>();
  private readonly maxKeys: number;

  constructor(
    readonly options: FailureBackoffOptions,
    private readonly clock: Clock,
  ) {
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  /** Reserves one attempt, or says how long until the key may try again. */
  reserve(key: string): Reservation {
    const now = this.clock.now();
    const entry = this.touch(key, now);
    if (now < entry.lockedUntil) return { allowed: false, retryAfterMs: entry.lockedUntil - now };
    const used = entry.failures + entry.pending;
    if (used >= this.options.free && entry.pending > 0) {
      // The attempt in flight may be the one that locks: wait for it.
      return { allowed: false, retryAfterMs: this.options.baseLockMs };
    }
    entry.pending++;
    return { allowed: true };
  }

  /** Gives back a reservation (the attempt never ran, or succeeded on a key that keeps its count). */
  release(key: string): void {
    const entry = this.entries.get(key);
    if (entry && entry.pending > 0) entry.pending--;
  }

  succeeded(key: string): void {
    this.release(key);
    const entry = this.entries.get(key);
    if (!entry || !this.options.resetOnSuccess) return;
    entry.failures = 0;
    entry.lockedUntil = 0;
  }

  failed(key: string): void {
    const now = this.clock.now();
    const entry = this.touch(key, now);
    if (entry.pending > 0) entry.pending--;
    entry.failures++;
    entry.lastFailureAt = now;
    const over = entry.failures - this.options.free;
    if (over >= 0) {
      const lock = Math.min(this.options.maxLockMs, this.options.baseLockMs * 2 ** Math.min(over, 30));
      entry.lockedUntil = Math.max(entry.lockedUntil, now + lock);
    }
  }

  /** Keys currently tracked (tests, memory checks). */
  get size(): number {
    return this.entries.size;
  }

  /** The key's entry, moved to the back (most recently used); stale state forgotten. */
  private touch(key: string, now: number): Entry {
    this.dropIdle(now);
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
    } else {
      entry = { failures: 0, pending: 0, lockedUntil: 0, lastFailureAt: now };
      if (this.entries.size >= this.maxKeys) this.entries.delete(this.entries.keys().next().value!);
    }
    if (entry.pending === 0 && now >= entry.lockedUntil && now - entry.lastFailureAt >= this.options.forgetAfterMs) {
      entry.failures = 0;
    }
    this.entries.set(key, entry);
    return entry;
  }

  /** Drops idle keys from the least recently used end; stops at the first one still in use. */
  private dropIdle(now: number): void {
    for (const [key, entry] of this.entries) {
      const idle =
        entry.pending === 0 && now >= entry.lockedUntil && now - entry.lastFailureAt >= this.options.forgetAfterMs;
      if (!idle) return;
      this.entries.delete(key);
    }
  }
}
