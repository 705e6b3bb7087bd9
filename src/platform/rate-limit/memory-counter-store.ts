import type { MonotonicClock } from '../clock';
import type {
  CounterStore,
  FailureLock,
  FailureReservation,
  RollingWindow,
  RollingWindowOptions,
} from './counter-store';
import { FailureBackoff, type FailureBackoffOptions } from './failure-backoff';
import { type RateLimitDecision, SlidingWindowLog } from './sliding-window-log';

/** A rolling window in this process's memory: one SlidingWindowLog. */
export class MemoryRollingWindow implements RollingWindow {
  private readonly log: SlidingWindowLog;

  constructor(readonly options: RollingWindowOptions) {
    this.log = new SlidingWindowLog(options, options.localClock);
  }

  check(key: string): Promise<RateLimitDecision> {
    return Promise.resolve(this.log.check(key));
  }

  tryAcquire(key: string): Promise<RateLimitDecision> {
    return Promise.resolve(this.log.tryAcquire(key));
  }

  checkThenRecord(key: string): Promise<RateLimitDecision> {
    const before = this.log.check(key);
    this.log.record(key);
    return Promise.resolve(before);
  }
}

/** FailureBackoff in this process's memory; its reservations are counts, so the ticket is unused. */
class MemoryFailureLock implements FailureLock {
  private readonly backoff: FailureBackoff;

  constructor(options: FailureBackoffOptions, clock: MonotonicClock) {
    this.backoff = new FailureBackoff(options, clock);
  }

  reserve(key: string): Promise<FailureReservation> {
    const r = this.backoff.reserve(key);
    return Promise.resolve(r.allowed ? { allowed: true, ticket: '' } : r);
  }

  release(key: string): Promise<void> {
    this.backoff.release(key);
    return Promise.resolve();
  }

  succeeded(key: string): Promise<void> {
    this.backoff.succeeded(key);
    return Promise.resolve();
  }

  failed(key: string): Promise<void> {
    this.backoff.failed(key);
    return Promise.resolve();
  }
}

/** Today's default: every counter in this process, per instance. */
export class MemoryCounterStore implements CounterStore {
  readonly kind = 'memory';

  rollingWindow(_name: string, options: RollingWindowOptions): RollingWindow {
    return new MemoryRollingWindow(options);
  }

  failureLock(_name: string, options: FailureBackoffOptions, localClock: MonotonicClock): FailureLock {
    return new MemoryFailureLock(options, localClock);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
