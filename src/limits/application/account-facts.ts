import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { CLOCK, Clock } from '../../platform/clock';
import type { CommandFacts } from '../domain/account-limits.decider';
import { LimitsQueries } from './limits.queries';

/**
 * What a limits decision needs besides the account's stream: the account's tier (from the
 * directory; an unknown account is a 404 before anything is decided), its tier's ceilings (from
 * configuration), who asks, and the time (read once, here at the edge).
 */
@Injectable()
export class AccountFacts {
  constructor(
    private readonly queries: LimitsQueries,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  of(hubId: number, userId: number | null): CommandFacts {
    const tier = this.queries.tierOf(hubId);
    return { hubId, tier, tierLimits: this.config.tierLimits[tier], userId, now: this.clock.now() };
  }
}
