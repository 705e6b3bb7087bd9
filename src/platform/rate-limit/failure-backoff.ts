import type { MonotonicClock } from '../clock';

export interface FailureBackoffOptions {
  /** Failures allowed before the first lock. */
  free: number;
  /** First lock; each further failure doubles it... */
  baseLockMs: number;
  /** ...up to this bound. */
  maxLockMs: number;
  /** A key with no failure for this long starts again from zero. */
  forgetAfterMs: number;
  /** Keys below their free failures tracked at most; past it the least recently used is forgotten. */
  maxKeys?: number;
  /** Keys that reached a lock tracked at most (see `held`). */
  maxHeldKeys?: number;
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
 * only one attempt at a time runs between locks.
 *
 * Durations are measured on a monotonic clock: a wall-clock step neither stretches nor ends a lock.
 *
 * Two maps, both in least-recently-used order so idle keys drop from the front in amortised O(1):
 * `fresh` holds keys below their free failures and forgets the oldest past `maxKeys` (any caller
 * can add keys to it); `held` holds keys that reached a lock, and no number of new keys evicts
 * them: a key gets there only through `free` real failures (each a password check, which the
 * caller bounds), and leaves once idle for `forgetAfterMs`. Past `maxHeldKeys` (far beyond what the
 * bounded checks can fill within `forgetAfterMs`) the held key idle the longest goes.
 */
export class FailureBackoff {
  private readonly fresh = new Map<string, Entry>();
  private readonly held = new Map<string, Entry>();
  private readonly maxKeys: number;
  private readonly maxHeldKeys: number;

  constructor(
    readonly options: FailureBackoffOptions,
    private readonly clock: MonotonicClock,
  ) {
    this.maxKeys = options.maxKeys ?? 100_000;
    this.maxHeldKeys = options.maxHeldKeys ?? 100_000;
  }

  /** Reserves one attempt, or says how long until the key may try again. */
  reserve(key: string): Reservation {
    const now = this.clock.elapsedMs();
    const entry = this.touch(key, now);
    if (now < entry.lockedUntil) return { allowed: false, retryAfterMs: Math.ceil(entry.lockedUntil - now) };
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
    const entry = this.held.get(key) ?? this.fresh.get(key);
    if (entry && entry.pending > 0) entry.pending--;
  }

  succeeded(key: string): void {
    this.release(key);
    if (!this.options.resetOnSuccess) return;
    const entry = this.held.get(key);
    if (entry) {
      // Cleared: back among the fresh keys.
      this.held.delete(key);
      entry.failures = 0;
      entry.lockedUntil = 0;
      this.addFresh(key, entry);
      return;
    }
    const fresh = this.fresh.get(key);
    if (fresh) fresh.failures = 0;
  }

  failed(key: string): void {
    const now = this.clock.elapsedMs();
    const entry = this.touch(key, now);
    if (entry.pending > 0) entry.pending--;
    entry.failures++;
    entry.lastFailureAt = now;
    const over = entry.failures - this.options.free;
    if (over >= 0) {
      const lock = Math.min(this.options.maxLockMs, this.options.baseLockMs * 2 ** Math.min(over, 30));
      entry.lockedUntil = Math.max(entry.lockedUntil, now + lock);
      if (this.fresh.delete(key)) {
        if (this.held.size >= this.maxHeldKeys) this.held.delete(this.held.keys().next().value!);
        this.held.set(key, entry);
      }
    }
  }

  /** Keys currently tracked (tests, memory checks). */
  get size(): number {
    return this.fresh.size + this.held.size;
  }

  /** The key's entry, moved to the back of its map (most recently used); stale state forgotten. */
  private touch(key: string, now: number): Entry {
    this.dropIdle(this.fresh, now);
    this.dropIdle(this.held, now);
    let entry = this.held.get(key);
    if (entry) {
      this.held.delete(key);
      if (!this.idle(entry, now)) {
        this.held.set(key, entry);
        return entry;
      }
      // Quiet long enough: starts again from zero, among the fresh keys.
      entry.failures = 0;
      entry.lockedUntil = 0;
      this.addFresh(key, entry);
      return entry;
    }
    entry = this.fresh.get(key);
    if (entry) {
      this.fresh.delete(key);
      if (this.idle(entry, now)) entry.failures = 0;
    } else {
      entry = { failures: 0, pending: 0, lockedUntil: 0, lastFailureAt: now };
    }
    this.addFresh(key, entry);
    return entry;
  }

  private addFresh(key: string, entry: Entry): void {
    if (this.fresh.size >= this.maxKeys) this.fresh.delete(this.fresh.keys().next().value!);
    this.fresh.set(key, entry);
  }

  private idle(entry: Entry, now: number): boolean {
    return entry.pending === 0 && now >= entry.lockedUntil && now - entry.lastFailureAt >= this.options.forgetAfterMs;
  }

  /** Drops idle keys from the least recently used end; stops at the first one still in use. */
  private dropIdle(map: Map<string, Entry>, now: number): void {
    for (const [key, entry] of map) {
      if (!this.idle(entry, now)) return;
      map.delete(key);
    }
  }
}
