import { Inject, Injectable } from '@nestjs/common';
import { MONOTONIC_CLOCK, type MonotonicClock } from '../../platform/clock';
import { COUNTER_STORE, type CounterStore, type FailureLock } from '../../platform/rate-limit/counter-store';

/**
 * Failed sign-ins allowed per e-mail and per address before a lock, the first lock, and its bound:
 * each further failure doubles the lock (1, 2, 4, 8 minutes, then 15 at most); a quiet hour forgets
 * the failures, and the right password clears an e-mail's count.
 */
export const SIGN_IN_FAILURES = {
  perEmail: 5,
  perAddress: 20,
  baseLockMs: 60_000,
  maxLockMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};
/** scrypt runs on libuv's small thread pool: a few at a time, a bounded queue behind them. */
const MAX_CONCURRENT_CHECKS = 4;
const MAX_QUEUED_CHECKS = 64;

export type SignInGate =
  | { allowed: true; attempt: SignInAttempt }
  | { allowed: false; retryAfterMs: number }
  | { allowed: false; busy: true }
  | { allowed: false; unavailable: true };

/** A reserved sign-in attempt: counted as a failure until it is settled. */
export interface SignInAttempt {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

/**
 * Brute-force protection of the install page's sign-in form, per e-mail and per address (the
 * client's, TRUST_PROXY decides which hop that is). The attempt is reserved before the password is
 * checked, so a burst of parallel posts gets no more checks than the budget; past it the password is
 * not even checked. Password checks run a few at a time, so a flood of posts cannot starve the
 * thread pool the rest of the service needs. These are security controls, not HubSpot emulation:
 * always on, whatever RATE_LIMIT_ENABLED says.
 *
 * The address is checked before the e-mail, so a locked address cannot add e-mail keys at all; and
 * a locked e-mail is kept apart from the keys anyone can add (FailureBackoff's `held`), so no flood
 * of made-up e-mails evicts it.
 */
@Injectable()
export class SignInThrottle {
  private readonly byEmail: FailureLock;
  private readonly byAddress: FailureLock;
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(@Inject(MONOTONIC_CLOCK) clock: MonotonicClock, @Inject(COUNTER_STORE) counters: CounterStore) {
    const { baseLockMs, maxLockMs, forgetAfterMs } = SIGN_IN_FAILURES;
    // In the counter store: shared by every instance when one is configured, so N instances give
    // no more guesses than one. Unreachable, it refuses sign-ins (fail closed).
    this.byEmail = counters.failureLock(
      'sign-in-email',
      { free: SIGN_IN_FAILURES.perEmail, baseLockMs, maxLockMs, forgetAfterMs, resetOnSuccess: true },
      clock,
    );
    // One valid account must not reset an address's count: only failures settle it.
    this.byAddress = counters.failureLock(
      'sign-in-address',
      { free: SIGN_IN_FAILURES.perAddress, baseLockMs, maxLockMs, forgetAfterMs, resetOnSuccess: false },
      clock,
    );
  }

  /** Reserves a password check for this e-mail from this address, or says why not. */
  async reserve(email: string, address: string): Promise<SignInGate> {
    if (this.running >= MAX_CONCURRENT_CHECKS && this.queue.length >= MAX_QUEUED_CHECKS) {
      return { allowed: false, busy: true };
    }
    const byAddress = await this.byAddress.reserve(address);
    if (!byAddress.allowed) return byAddress;
    const emailKey = email.trim().toLowerCase();
    const byEmail = await this.byEmail.reserve(emailKey);
    if (!byEmail.allowed) {
      await this.byAddress.release(address, byAddress.ticket);
      return byEmail;
    }
    let settled = false;
    const settle = async (outcome: 'succeeded' | 'failed') => {
      if (settled) return;
      settled = true;
      await Promise.all([
        this.byEmail[outcome](emailKey, byEmail.ticket),
        this.byAddress[outcome](address, byAddress.ticket),
      ]);
    };
    return { allowed: true, attempt: { succeeded: () => settle('succeeded'), failed: () => settle('failed') } };
  }

  /** Runs a password check when one of the few slots is free. */
  async limitConcurrency<T>(check: () => Promise<T>): Promise<T> {
    if (this.running >= MAX_CONCURRENT_CHECKS) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.running++;
    try {
      return await check();
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }
}
