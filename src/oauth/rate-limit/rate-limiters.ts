import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { EventEmitter } from 'node:events';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Metrics } from '../../platform/metrics/metrics';
import { CLOCK, Clock } from '../../platform/clock';
import { publicAppGroup, tokenRequestsExceeded } from '../../platform/rate-limit/rate-limit-responses';
import { SlidingWindowLog } from '../../platform/rate-limit/sliding-window-log';

export type RateLimitPolicy = 'TEN_SECONDLY_ROLLING' | 'CLIENT_AUTHENTICATION_FAILURES';

/** Emitted on every 429 we send: metrics, and tests that react to a refusal instead of sleeping. */
export interface RateLimitedEvent {
  policy: RateLimitPolicy;
  key: string;
  retryAfterMs: number;
}

/**
 * The limiters of this instance: HubSpot's public-app limit per app and account, and the count
 * of failed client authentications per client_id and per address. In memory: with several
 * instances behind a balancer each enforces its own share (documented in docs/reliability.md).
 */
@Injectable()
export class RateLimiters {
  readonly enabled: boolean;
  readonly publicApp: SlidingWindowLog;
  readonly clientAuthFailures: SlidingWindowLog;
  readonly tokenRequests: SlidingWindowLog;
  readonly developerApiKey: SlidingWindowLog;
  /** 'limited' → RateLimitedEvent. */
  readonly events = new EventEmitter();
  private readonly limited: Counter<'policy'>;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(CLOCK) clock: Clock, metrics: Metrics) {
    const r = config.rateLimit;
    this.enabled = r.enabled;
    this.publicApp = new SlidingWindowLog({ windowMs: r.windowMs, max: r.max }, clock);
    this.clientAuthFailures = new SlidingWindowLog(
      { windowMs: r.clientAuthFailures.windowMs, max: r.clientAuthFailures.max },
      clock,
    );
    this.tokenRequests = new SlidingWindowLog({ windowMs: r.tokenRequests.windowMs, max: r.tokenRequests.max }, clock);
    this.developerApiKey = new SlidingWindowLog(
      { windowMs: r.developerApiKeyRequests.windowMs, max: r.developerApiKeyRequests.max },
      clock,
    );
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
  acquireTokenRequest(appId: number, hubId: number): void {
    if (!this.enabled) return;
    const group = hubId === 0 ? `publicapp:${appId}` : publicAppGroup(appId, hubId);
    const decision = this.tokenRequests.tryAcquire(group);
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
