import type { Clock, MonotonicClock } from '../clock';
import type { FailureBackoffOptions } from './failure-backoff';
import type { RateLimitDecision, SlidingWindowOptions } from './sliding-window-log';

/**
 * Where rate-limit counters, throttles and sign-in locks live. In memory (the default) each
 * instance counts alone, so N instances allow N times every limit; a shared store (Redis,
 * `COUNTER_STORE_URL`) makes every instance count against one budget.
 */
export interface CounterStore {
  readonly kind: 'memory' | 'redis';
  /** A rolling-window limiter (exact sliding log) under `name`. */
  rollingWindow(name: string, options: RollingWindowOptions): RollingWindow;
  /** Failures with an exponential lock (the sign-in lockout) under `name`; refuses when unreachable. */
  failureLock(name: string, options: FailureBackoffOptions, localClock: MonotonicClock): FailureLock;
  close(): Promise<void>;
}

export const COUNTER_STORE = Symbol('COUNTER_STORE');

export interface RollingWindowOptions extends SlidingWindowOptions {
  /** What an in-memory window (and a shared one's fallback) measures time with. */
  localClock: Clock;
  /**
   * When a shared store cannot be reached: `count-locally` (HubSpot's quotas) falls back to this
   * instance's own window, so the API stays up with a per-instance limit; `refuse` (security
   * throttles) answers every decision as over the limit until the store is back (fail closed).
   */
  whenUnreachable: 'count-locally' | 'refuse';
}

export interface RollingWindow {
  readonly options: RollingWindowOptions;
  /** The decision `tryAcquire` would take, counting nothing. */
  check(key: string): Promise<RateLimitDecision>;
  /** Counts one occurrence if the key still has room; refused attempts are not counted. */
  tryAcquire(key: string): Promise<RateLimitDecision>;
  /** Counts one occurrence whatever the count (failures); answers the decision from before it. */
  checkThenRecord(key: string): Promise<RateLimitDecision>;
}

export type FailureReservation =
  { allowed: true; ticket: string } | { allowed: false; retryAfterMs: number } | { allowed: false; unavailable: true };

/** FailureBackoff's operations; a reservation's ticket settles exactly that reservation. */
export interface FailureLock {
  reserve(key: string): Promise<FailureReservation>;
  release(key: string, ticket: string): Promise<void>;
  succeeded(key: string, ticket: string): Promise<void>;
  failed(key: string, ticket: string): Promise<void>;
}

/** How long a refused-while-unreachable decision asks the client to wait. */
export const UNREACHABLE_RETRY_MS = 5_000;

/** The decision a `refuse` window answers while its shared store cannot be reached. */
export function refusedWhileUnreachable(options: SlidingWindowOptions): RateLimitDecision {
  return {
    allowed: false,
    limit: options.max,
    remaining: 0,
    windowMs: options.windowMs,
    retryAfterMs: Math.min(options.windowMs, UNREACHABLE_RETRY_MS),
  };
}
