import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { ClientAuthenticationThrottle } from './client-authentication-throttle';
import { DailyApiUsage, installDailyApiUsageCount } from './daily-api-usage';
import { PublicAppRateLimitInterceptor } from './public-app-rate-limit.interceptor';
import { RateLimiters } from './rate-limiters';

/** Holds this instance's limiters and daily call counts (CoreModule provides the config, clock and metrics). */
@Module({
  providers: [RateLimiters, DailyApiUsage, ClientAuthenticationThrottle],
  exports: [RateLimiters, DailyApiUsage, ClientAuthenticationThrottle],
})
export class RateLimitModule {}

/**
 * Wires the limits into the HTTP pipeline, before `app.init()`. RATE_LIMIT_ENABLED=false (HubSpot
 * emulation) leaves out HubSpot's public-app limit, so benchmarks measure the service without it (the
 * daily call count stays). The throttle of failed client authentication is a security control, always
 * on, applied by the token controller where it makes its answer (ClientAuthenticationThrottle).
 */
export function installRateLimits(app: NestFastifyApplication, fastify: FastifyInstance): void {
  // The daily usage account-info reports is counted whether or not limits are enforced.
  installDailyApiUsageCount(fastify, app.get(DailyApiUsage));
  const limiters = app.get(RateLimiters);
  if (!limiters.enabled) return;
  app.useGlobalInterceptors(new PublicAppRateLimitInterceptor(limiters));
}
