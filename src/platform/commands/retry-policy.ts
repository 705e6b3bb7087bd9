import { ConcurrencyError } from '../event-store/concurrency-error';
import { ConcurrencyConflictError } from './concurrency-conflict-error';

/** How often a command re-decides after losing an expected-revision race, before 409. */
export interface RetryPolicy {
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5 };

/** Longest pause between two attempts, in event-loop turns (no timers: the clock plays no part). */
const MAX_BACKOFF_TURNS = 8;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The write side's one retry loop. Runs `attempt` (load, decide, append) again when it throws a
 * ConcurrencyError, after 0 to min(n, 8) event-loop turns at random (so writers that collided do
 * not collide again in lockstep); after `maxAttempts` it gives up with ConcurrencyConflictError (409).
 * `onConflict` runs before each retry and before giving up: a step that wrote elsewhere first can undo it.
 */
export async function retryOnConflict<T>(
  streamId: string,
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  onConflict?: (n: number, error: ConcurrencyError) => Promise<void>,
): Promise<T> {
  const { maxAttempts } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(`maxAttempts ${maxAttempts}`);
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      if (onConflict) await onConflict(n, error);
      if (n >= maxAttempts) throw new ConcurrencyConflictError(streamId, n);
      const turns = Math.floor(Math.random() * (Math.min(n, MAX_BACKOFF_TURNS) + 1));
      for (let i = 0; i < turns; i++) await nextTurn();
    }
  }
}
