import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { EventEmitter } from 'node:events';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Metrics } from '../../platform/metrics/metrics';
import { CLOCK, Clock } from '../../platform/clock';
import { publicAppGroup, tokenRequestsExceeded } from '../../platform/rate-limit/rate-limit-responses';
import { COUNTER_STORE, type CounterStore, type RollingWindow } from '../../platform/rate-limit/counter-store';

export type RateLimitPolicy = 'TEN_SECONDLY_ROLLING' | 'CLIENT_AUTHENTICATION_FAILURES';

/** Emitted on every 429 we send: metrics, and tests that react to a refusal instead of sleeping. */
export interface RateLimitedEvent {
  policy: RateLimitPolicy;
  key: string;
  retryAfterMs: number;
}

/**
 * The limiters of this instance: HubSpot's public-app limit per app and account, and the count
 * of failed client authentications per client_id and per address. In the configured counter store:
 * in memory each instance enforces its own share; on Redis (COUNTER_STORE_URL) every instance counts
 * against one budget (README, "Several instances").
 */
@Injectable()
export class RateLimiters {
  readonly enabled: boolean;
  readonly publicApp: RollingWindow;
  readonly clientAuthFailures: RollingWindow;
  readonly tokenRequests: RollingWindow;
  readonly developerApiKey: RollingWindow;
  /** 'limited' → RateLimitedEvent. */
  readonly events = new EventEmitter();
  private readonly limited: Counter<'policy'>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(CLOCK) clock: Clock,
    metrics: Metrics,
    @Inject(COUNTER_STORE) counters: CounterStore,
  ) {
    const r = config.rateLimit;
    this.enabled = r.enabled;
    // HubSpot's quotas stay up (per instance) while a shared store is unreachable; the security
    // throttle refuses instead (fail closed).
    const quota = { localClock: clock, whenUnreachable: 'count-locally' } as const;
    this.publicApp = counters.rollingWindow('publicapp', { windowMs: r.windowMs, max: r.max, ...quota });
    this.clientAuthFailures = counters.rollingWindow('client-auth-failures', {
      ...r.clientAuthFailures,
      localClock: clock,
      whenUnreachable: 'refuse',
    });
    this.tokenRequests = counters.rollingWindow('token-requests', { ...r.tokenRequests, ...quota });
    this.developerApiKey = counters.rollingWindow('developer-api-key', { ...r.developerApiKeyRequests, ...quota });
    this.limited = new Counter({
      name: 'http_rate_limited_total',
      help: 'Requests answered 429 by a rate limit, per policy',
      labelNames: ['policy'] as const,
      registers: [metrics.registry],
    });
  }

  /**
   * Counts one successful token request of an app in an account (`hubId` 0: an app token) before
   * anything is issued; past the limit, HubSpot's TEN_SECONDLY_ROLLING 429.
   */
  async acquireTokenRequest(appId: number, hubId: number): Promise<void> {
    if (!this.enabled) return;
    const group = hubId === 0 ? `publicapp:${appId}` : publicAppGroup(appId, hubId);
    const decision = await this.tokenRequests.tryAcquire(group);
    if (decision.allowed) return;
    this.noteLimited({ policy: 'TEN_SECONDLY_ROLLING', key: group, retryAfterMs: decision.retryAfterMs });
    throw tokenRequestsExceeded(group, decision);
  }

  /** Called for each 429 sent. */
  noteLimited(event: RateLimitedEvent): void {
    this.limited.inc({ policy: event.policy });
    this.events.emit('limited', event);
  }
}
