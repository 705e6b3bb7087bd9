import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Observable, throwError } from 'rxjs';
import type { RequestWithToken } from '../http/bearer-token.guard';
import {
  publicAppGroup,
  rateLimitHeaders,
  tenSecondlyRollingExceeded,
} from '../../platform/rate-limit/rate-limit-responses';
import { RateLimiters } from './rate-limiters';

/**
 * HubSpot's public-app limit on every call authenticated by an OAuth access token: the bearer
 * guard has verified the token before interceptors run, so the key is the token's app and
 * account. Every such response carries `X-HubSpot-RateLimit-*`; past the limit, a 429 with
 * HubSpot's TEN_SECONDLY_ROLLING body (what @hubspot/api-client's retry looks for).
 * Calls without an access token (admin API, token endpoint, install page) are not counted.
 */
@Injectable()
export class PublicAppRateLimitInterceptor implements NestInterceptor {
  constructor(private readonly limiters: RateLimiters) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const token = http.getRequest<RequestWithToken>().token;
    if (!token) return next.handle();
    const group = publicAppGroup(token.appId, token.hubId);
    const decision = this.limiters.publicApp.tryAcquire(group);
    void http.getResponse<FastifyReply>().headers(rateLimitHeaders(decision));
    if (!decision.allowed) {
      this.limiters.noteLimited({ policy: 'TEN_SECONDLY_ROLLING', key: group, retryAfterMs: decision.retryAfterMs });
      return throwError(() => tenSecondlyRollingExceeded(group, decision));
    }
    return next.handle();
  }
}
