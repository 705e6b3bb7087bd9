import { Inject, Injectable } from '@nestjs/common';
import { MONOTONIC_CLOCK, type MonotonicClock } from '../../platform/clock';
import { COUNTER_STORE, type CounterStore, type FailureLock } from '../../platform/rate-limit/counter-store';

/**
 * Wrong admin keys allowed per client address and across all addresses before a lock; each further
 * failure doubles the lock (1, 2, 4, 8 minutes, then 15 at most); a quiet hour forgets the failures.
 */
export const CONSOLE_SIGN_IN_FAILURES = {
  perAddress: 10,
  overall: 100,
  baseLockMs: 60_000,
  maxLockMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

export type ConsoleSignInGate =
  | { allowed: true; attempt: { succeeded(): Promise<void>; failed(): Promise<void> } }
  | { allowed: false; retryAfterMs: number }
  | { allowed: false; unavailable: true };

/**
 * Brute-force protection of the console's sign-in form, per client address (TRUST_PROXY decides
 * which hop that is) and overall (many addresses together: a botnet gets no more guesses than the
 * overall budget; the price is that it can lock the form for everyone for up to maxLockMs, while the
 * admin API keeps working with the key). In the counter store, so every instance counts against one
 * budget when a shared store is configured; unreachable, it refuses (fail closed). The attempt is
 * reserved before the key is compared, so a burst of parallel posts gets no more comparisons than the
 * budget. A security control: always on, whatever RATE_LIMIT_ENABLED says.
 */
@Injectable()
export class ConsoleSignInThrottle {
  private readonly byAddress: FailureLock;
  private readonly overall: FailureLock;

  constructor(@Inject(MONOTONIC_CLOCK) clock: MonotonicClock, @Inject(COUNTER_STORE) counters: CounterStore) {
    const { baseLockMs, maxLockMs, forgetAfterMs } = CONSOLE_SIGN_IN_FAILURES;
    this.byAddress = counters.failureLock(
      'console-sign-in-address',
      { free: CONSOLE_SIGN_IN_FAILURES.perAddress, baseLockMs, maxLockMs, forgetAfterMs, resetOnSuccess: true },
      clock,
    );
    // Only failures settle the overall count: one right key does not give the others their guesses back.
    this.overall = counters.failureLock(
      'console-sign-in-all',
      { free: CONSOLE_SIGN_IN_FAILURES.overall, baseLockMs, maxLockMs, forgetAfterMs, resetOnSuccess: false },
      clock,
    );
  }

  async reserve(address: string): Promise<ConsoleSignInGate> {
    const byAddress = await this.byAddress.reserve(address);
    if (!byAddress.allowed) return byAddress;
    const overall = await this.overall.reserve('all');
    if (!overall.allowed) {
      await this.byAddress.release(address, byAddress.ticket);
      return overall;
    }
    let settled = false;
    const settle = async (outcome: 'succeeded' | 'failed') => {
      if (settled) return;
      settled = true;
      await Promise.all([
        this.byAddress[outcome](address, byAddress.ticket),
        this.overall[outcome]('all', overall.ticket),
      ]);
    };
    return { allowed: true, attempt: { succeeded: () => settle('succeeded'), failed: () => settle('failed') } };
  }
}
