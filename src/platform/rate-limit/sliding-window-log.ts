import type { Clock } from '../clock';

export interface SlidingWindowOptions {
  /** Length of the rolling window. */
  windowMs: number;
  /** Occurrences allowed inside any window of that length. */
  max: number;
  /** Keys tracked at most; past it the least recently used key is forgotten (memory bound). */
  maxKeys?: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Room left in the window after this decision. */
  remaining: number;
  windowMs: number;
  /** When refused: time until the oldest counted occurrence leaves the window (0 when allowed). */
  retryAfterMs: number;
}

/** The times of one key's occurrences, oldest first; never more than `max` of them. */
interface Log {
  times: number[];
  head: number;
  /** When the key was last counted or refused: no occurrence of it is newer. */
  touchedAt: number;
}

/**
 * A rolling-window limiter (sliding log): a key may have at most `max` occurrences in any
 * `windowMs`-long span that ends now. Exact, unlike a sliding-window counter, and small at
 * HubSpot's sizes (110 timestamps per app and account at most). Time comes from the injected
 * clock only, so tests move a ManualClock instead of sleeping. State is in memory, per instance.
 *
 * Keys are kept in the order they were last touched (a Map re-inserted on each touch), so the
 * keys whose occurrences all left the window are at the front: each operation drops those from
 * the front, and past `maxKeys` the least recently touched key goes. Amortised O(1) per operation
 * whatever the number of keys (attacker-chosen client ids and addresses): nothing ever walks them all.
 */
export class SlidingWindowLog {
  private readonly logs = new Map<string, Log>();
  private readonly maxKeys: number;

  constructor(
    readonly options: SlidingWindowOptions,
    private readonly clock: Clock,
  ) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new Error('max must be a positive integer');
    if (!(options.windowMs > 0)) throw new Error('windowMs must be positive');
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  /** Counts one occurrence if the key still has room; refused attempts are not counted. */
  tryAcquire(key: string): RateLimitDecision {
    const now = this.tick();
    const log = this.logOf(key, now, true)!;
    const count = log.times.length - log.head;
    if (count >= this.options.max) return this.refused(log, now);
    log.times.push(now);
    return this.allowed(count + 1);
  }

  /** Counts one occurrence whatever the count (failed attempts); only the newest `max` are kept. */
  record(key: string): void {
    const now = this.tick();
    const log = this.logOf(key, now, true)!;
    log.times.push(now);
    if (log.times.length - log.head > this.options.max) log.head++;
    compact(log);
  }

  /** The decision `tryAcquire` would take, without counting anything. */
  check(key: string): RateLimitDecision {
    const now = this.tick();
    const log = this.logOf(key, now, false);
    const count = log ? log.times.length - log.head : 0;
    if (log && count >= this.options.max) return this.refused(log, now);
    return this.allowed(count);
  }

  /** Keys currently tracked (tests, memory checks). */
  get size(): number {
    return this.logs.size;
  }

  private allowed(count: number): RateLimitDecision {
    return {
      allowed: true,
      limit: this.options.max,
      remaining: Math.max(0, this.options.max - count),
      windowMs: this.options.windowMs,
      retryAfterMs: 0,
    };
  }

  private refused(log: Log, now: number): RateLimitDecision {
    return {
      allowed: false,
      limit: this.options.max,
      remaining: 0,
      windowMs: this.options.windowMs,
      // A clock set backwards leaves entries "in the future": never promise more than one window.
      retryAfterMs: Math.min(this.options.windowMs, Math.max(1, log.times[log.head]! + this.options.windowMs - now)),
    };
  }

  /** The key's log with expired occurrences dropped; moved to the back of the map (most recently used). */
  private logOf(key: string, now: number, create: boolean): Log | undefined {
    let log = this.logs.get(key);
    if (log) {
      this.expire(log, now);
      if (create) {
        log.touchedAt = now;
        this.logs.delete(key);
        this.logs.set(key, log);
      }
      return log;
    }
    if (!create) return undefined;
    if (this.logs.size >= this.maxKeys) this.logs.delete(this.logs.keys().next().value!);
    log = { times: [], head: 0, touchedAt: now };
    this.logs.set(key, log);
    return log;
  }

  private expire(log: Log, now: number): void {
    const horizon = now - this.options.windowMs;
    while (log.head < log.times.length && log.times[log.head]! <= horizon) log.head++;
    compact(log);
  }

  /** Forgets the least recently touched keys while nothing of theirs is left in the window. */
  private tick(): number {
    const now = this.clock.now();
    const horizon = now - this.options.windowMs;
    for (const [key, log] of this.logs) {
      if (log.touchedAt > horizon) break;
      this.logs.delete(key);
    }
    return now;
  }
}

/** Drops consumed slots once they are the larger part of the array (amortised O(1)). */
function compact(log: Log): void {
  if (log.head === log.times.length) {
    log.times.length = 0;
    log.head = 0;
  } else if (log.head >= 32 && log.head * 2 >= log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
}
