import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../platform/config/config';
import { HubSpotError } from '../platform/errors/hubspot-error';
import { Authenticators, type Caller } from '../platform/http/authentication';
import type { RequestWithActor } from '../platform/http/request-context';
import { constantTimeEqual } from '../platform/security/crypto';

const SCRAPER: Caller = { actor: 'metrics' };

/**
 * The `metrics` credential of `@Authenticated({ by: 'metrics' })`: with METRICS_TOKEN set,
 * `Authorization: Bearer <METRICS_TOKEN>` (Prometheus's `authorization` scrape setting), compared in
 * constant time. Unset, the endpoint stays open, as scrapers on a private network expect.
 */
@Injectable()
export class MetricsAuthentication implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly authenticators: Authenticators,
  ) {}

  onModuleInit(): void {
    this.authenticators.register('metrics', (request) => this.authenticate(request));
  }

  private authenticate(request: Pick<RequestWithActor, 'headers'>): Caller {
    const expected = this.config.metricsToken;
    if (expected === null) return SCRAPER;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header.trim()) : null;
    if (!match || !constantTimeEqual(match[1]!, expected)) {
      throw HubSpotError.invalidAuthentication('/metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    }
    return SCRAPER;
  }
}
