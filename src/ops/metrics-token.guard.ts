import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../platform/config/config';
import { HubSpotError } from '../platform/errors/hubspot-error';
import { constantTimeEqual } from '../platform/security/crypto';

/**
 * `/metrics` with METRICS_TOKEN set: `Authorization: Bearer <METRICS_TOKEN>` (Prometheus's
 * `authorization` scrape setting), compared in constant time. Unset, the endpoint stays open, as
 * scrapers on a private network expect.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.metricsToken;
    if (expected === null) return true;
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
    const match = typeof header === 'string' ? /^Bearer (.+)$/i.exec(header.trim()) : null;
    if (!match || !constantTimeEqual(match[1]!, expected)) {
      throw HubSpotError.invalidAuthentication('/metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    }
    return true;
  }
}
