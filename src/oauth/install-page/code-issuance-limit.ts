import { Inject, Injectable } from '@nestjs/common';
import { MONOTONIC_CLOCK, type MonotonicClock } from '../../platform/clock';
import { SlidingWindowLog } from '../../platform/rate-limit/sliding-window-log';

/**
 * Approvals (authorization codes) a person may give on the install page: a person does not approve
 * hundreds of installs a minute, and each approval is a durable event. Per user across apps and
 * accounts, and per install (one app in one account) across users.
 */
export const CODE_ISSUANCE_LIMITS = {
  windowMs: 60_000,
  perUser: 30,
  perInstall: 10,
};

export type CodeIssuanceGate = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Bounds authorization-code issuance from the install page, so one signed-in user replaying the
 * consent form cannot grow the event store without end. A security control: always on, whatever
 * RATE_LIMIT_ENABLED says. In memory, per instance; windows on the monotonic clock.
 */
@Injectable()
export class CodeIssuanceLimit {
  private readonly perUser: SlidingWindowLog;
  private readonly perInstall: SlidingWindowLog;

  constructor(@Inject(MONOTONIC_CLOCK) clock: MonotonicClock) {
    const elapsed = { now: () => clock.elapsedMs() };
    const { windowMs, perUser, perInstall } = CODE_ISSUANCE_LIMITS;
    this.perUser = new SlidingWindowLog({ windowMs, max: perUser }, elapsed);
    this.perInstall = new SlidingWindowLog({ windowMs, max: perInstall }, elapsed);
  }

  /** Counts one approval of `appId` in `hubId` by `userId`, or says how long to wait. */
  tryAcquire(userId: number, appId: number, hubId: number): CodeIssuanceGate {
    const userKey = String(userId);
    const installKey = `${appId}:${hubId}`;
    const byUser = this.perUser.check(userKey);
    const byInstall = this.perInstall.check(installKey);
    if (!byUser.allowed || !byInstall.allowed) {
      return { allowed: false, retryAfterMs: Math.max(byUser.retryAfterMs, byInstall.retryAfterMs) };
    }
    this.perUser.tryAcquire(userKey);
    this.perInstall.tryAcquire(installKey);
    return { allowed: true };
  }
}
