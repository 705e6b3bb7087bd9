import { Inject, Injectable } from '@nestjs/common';
import { MONOTONIC_CLOCK, type MonotonicClock } from '../../platform/clock';
import { COUNTER_STORE, type CounterStore, type RollingWindow } from '../../platform/rate-limit/counter-store';

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
 * RATE_LIMIT_ENABLED says. In the counter store (per instance in memory, on the monotonic clock;
 * shared on Redis, where an unreachable store refuses approvals: fail closed).
 */
@Injectable()
export class CodeIssuanceLimit {
  private readonly perUser: RollingWindow;
  private readonly perInstall: RollingWindow;

  constructor(@Inject(MONOTONIC_CLOCK) clock: MonotonicClock, @Inject(COUNTER_STORE) counters: CounterStore) {
    const local = { localClock: { now: () => clock.elapsedMs() }, whenUnreachable: 'refuse' } as const;
    const { windowMs, perUser, perInstall } = CODE_ISSUANCE_LIMITS;
    this.perUser = counters.rollingWindow('code-issuance-user', { windowMs, max: perUser, ...local });
    this.perInstall = counters.rollingWindow('code-issuance-install', { windowMs, max: perInstall, ...local });
  }

  /** Counts one approval of `appId` in `hubId` by `userId`, or says how long to wait. */
  async tryAcquire(userId: number, appId: number, hubId: number): Promise<CodeIssuanceGate> {
    const userKey = String(userId);
    const installKey = `${appId}:${hubId}`;
    const [byUser, byInstall] = await Promise.all([this.perUser.check(userKey), this.perInstall.check(installKey)]);
    if (!byUser.allowed || !byInstall.allowed) {
      return { allowed: false, retryAfterMs: Math.max(byUser.retryAfterMs, byInstall.retryAfterMs) };
    }
    // Each acquire is atomic on its own: an approval another instance took in between refuses
    // this one (never more than the limit; at worst a user's place is spent on a refused install).
    const user = await this.perUser.tryAcquire(userKey);
    if (!user.allowed) return { allowed: false, retryAfterMs: user.retryAfterMs };
    const install = await this.perInstall.tryAcquire(installKey);
    if (!install.allowed) return { allowed: false, retryAfterMs: install.retryAfterMs };
    return { allowed: true };
  }
}
