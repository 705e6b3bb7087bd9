import { Inject, Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { APP_CONFIG, type AppConfig } from '../../platform/config/config';
import { CLOCK, type Clock } from '../../platform/clock';
import { COUNTER_STORE, type CounterStore, type RollingWindow } from '../../platform/rate-limit/counter-store';
import { rateLimitExceeded, rateLimitHeaders, retryAfterSeconds } from '../../platform/rate-limit/rate-limit-responses';

/** HubSpot's search limit: 5 requests a second per account, whatever the app. */
export const SEARCH_REQUESTS_PER_SECOND = 5;

/**
 * HubSpot's own limit on search (its search guide: "5 requests per second" per account), apart from
 * the public-app limit every CRM call counts against. Counted in the configured counter store, so
 * with Redis every instance counts against one budget. The 6th search within a second is HubSpot's
 * SECONDLY 429, whose message `@hubspot/api-client` retries on after a second. Off with
 * RATE_LIMIT_ENABLED=false, like the other limits.
 */
@Injectable()
export class SearchRateLimit {
  /** 'limited' → the hubId, on each SECONDLY 429 (tests react to it instead of sleeping). */
  readonly events = new EventEmitter();
  private readonly enabled: boolean;
  private readonly window: RollingWindow;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(CLOCK) clock: Clock,
    @Inject(COUNTER_STORE) counters: CounterStore,
  ) {
    this.enabled = config.rateLimit.enabled;
    this.window = counters.rollingWindow('crm-search', {
      windowMs: 1000,
      max: SEARCH_REQUESTS_PER_SECOND,
      localClock: clock,
      whenUnreachable: 'count-locally',
    });
  }

  /** Counts one search of the account; past the limit, HubSpot's SECONDLY 429. */
  async acquire(hubId: number): Promise<void> {
    if (!this.enabled) return;
    const decision = await this.window.tryAcquire(`search:${hubId}`);
    if (decision.allowed) return;
    this.events.emit('limited', hubId);
    throw rateLimitExceeded('SECONDLY', { ...rateLimitHeaders(decision), 'Retry-After': retryAfterSeconds(decision) });
  }
}
