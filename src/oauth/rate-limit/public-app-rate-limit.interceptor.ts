import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { from, mergeMap, Observable, throwError } from 'rxjs';
import type { RequestWithToken } from '../http/bearer-authentication';
import type { RequestWithActor } from '../../platform/http/request-context';
import {
  developerApiKeyGroup,
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
 * Calls made with a developer API key (`?hapikey=`, the cards-dev endpoints) count against their
 * developer account's own limit, HubSpot's API-key burst limit, with the same headers and 429.
 * Calls without either (admin API, token endpoint, install page) are not counted.
 */
@Injectable()
export class PublicAppRateLimitInterceptor implements NestInterceptor {
  constructor(private readonly limiters: RateLimiters) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithToken & RequestWithActor>();
    const token = request.token;
    const developerHubId = token ? undefined : request.developerApiKeyHubId;
    if (!token && developerHubId === undefined) return next.handle();
    const [limiter, group] = token
      ? [this.limiters.publicApp, publicAppGroup(token.appId, token.hubId)]
      : [this.limiters.developerApiKey, developerApiKeyGroup(developerHubId!)];
    return from(limiter.tryAcquire(group)).pipe(
      mergeMap((decision) => {
        void http.getResponse<FastifyReply>().headers(rateLimitHeaders(decision));
        if (!decision.allowed) {
          this.limiters.noteLimited({
            policy: 'TEN_SECONDLY_ROLLING',
            key: group,
            retryAfterMs: decision.retryAfterMs,
          });
          return throwError(() => tenSecondlyRollingExceeded(group, decision));
        }
        return next.handle();
      }),
    );
  }
}
