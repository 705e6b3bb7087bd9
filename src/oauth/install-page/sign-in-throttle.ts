import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { CLOCK, Clock } from '../../platform/clock';
import { SlidingWindowLog } from '../../platform/rate-limit/sliding-window-log';

/** Failed sign-ins allowed per e-mail and per address in the window, before the form refuses to check. */
export const SIGN_IN_FAILURES = { perEmail: 5, perAddress: 20, windowMs: 15 * 60_000 };
/** scrypt runs on libuv's small thread pool: a few at a time, a bounded queue behind them. */
const MAX_CONCURRENT_CHECKS = 4;
const MAX_QUEUED_CHECKS = 64;

export type SignInGate = { allowed: true } | { allowed: false; retryAfterMs: number } | { allowed: false; busy: true };

/**
 * Brute-force protection of the install page's sign-in form: failed attempts are counted per
 * e-mail and per address (rolling window, injected clock); past either budget the password is not
 * even checked. Password checks run a few at a time, so a flood of posts cannot starve the
 * thread pool the rest of the service needs. Off with RATE_LIMIT_ENABLED=false, like the other limits.
 */
@Injectable()
export class SignInThrottle {
  private readonly enabled: boolean;
  private readonly byEmail: SlidingWindowLog;
  private readonly byAddress: SlidingWindowLog;
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(CLOCK) clock: Clock) {
    this.enabled = config.rateLimit.enabled;
    this.byEmail = new SlidingWindowLog({ windowMs: SIGN_IN_FAILURES.windowMs, max: SIGN_IN_FAILURES.perEmail }, clock);
    this.byAddress = new SlidingWindowLog(
      { windowMs: SIGN_IN_FAILURES.windowMs, max: SIGN_IN_FAILURES.perAddress },
      clock,
    );
  }

  /** Whether a password check may run for this e-mail from this address. */
  check(email: string, address: string): SignInGate {
    if (!this.enabled) return { allowed: true };
    const decisions = [this.byEmail.check(emailKey(email)), this.byAddress.check(address)];
    const refused = decisions.filter((d) => !d.allowed);
    if (refused.length > 0) return { allowed: false, retryAfterMs: Math.max(...refused.map((d) => d.retryAfterMs)) };
    if (this.running >= MAX_CONCURRENT_CHECKS && this.queue.length >= MAX_QUEUED_CHECKS) {
      return { allowed: false, busy: true };
    }
    return { allowed: true };
  }

  recordFailure(email: string, address: string): void {
    if (!this.enabled) return;
    this.byEmail.record(emailKey(email));
    this.byAddress.record(address);
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

const emailKey = (email: string) => email.trim().toLowerCase();
