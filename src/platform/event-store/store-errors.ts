/**
 * The store could not say whether an append was written: the same append was sent again a few
 * times (idempotent: deterministic event ids, exact expected revision) and every attempt ended
 * without an answer. Answered 503 with Retry-After: retrying the request later is safe.
 */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** A read from a position that is not one this store issued (e.g. an `after` from another store). */
export class InvalidPositionError extends Error {
  constructor(readonly position: number) {
    super(`${position} is not a position of this event store`);
    this.name = 'InvalidPositionError';
  }
}

/**
 * A subscription to the global feed ended by an error that resubscribing cannot cure (access
 * denied, a position that is not this log's, an event that cannot be decoded). Never retried:
 * the projection or reactor on it stops, and readiness reports it with `reason`.
 */
export class FeedFailedError extends Error {
  readonly reason: string;
  constructor(override readonly cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`the event feed stopped: ${reason}`);
    this.name = 'FeedFailedError';
    this.reason = reason;
  }
}
