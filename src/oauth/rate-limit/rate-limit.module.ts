import { Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { installClientAuthenticationThrottle } from './client-authentication-throttle';
import { PublicAppRateLimitInterceptor } from './public-app-rate-limit.interceptor';
import { RateLimiters } from './rate-limiters';

/** Holds this instance's limiters (CoreModule provides the config, clock and metrics). */
@Module({ providers: [RateLimiters], exports: [RateLimiters] })
export class RateLimitModule {}

/**
 * Wires the limits into the HTTP pipeline, before `app.init()`. The throttle of failed client
 * authentication is a security control and always on; RATE_LIMIT_ENABLED=false (HubSpot emulation)
 * leaves out only HubSpot's public-app limit, so benchmarks measure the service without it.
 */
export function installRateLimits(app: NestFastifyApplication, fastify: FastifyInstance): void {
  const limiters = app.get(RateLimiters);
  installClientAuthenticationThrottle(fastify, limiters);
  if (!limiters.enabled) return;
  app.useGlobalInterceptors(new PublicAppRateLimitInterceptor(limiters));
}
