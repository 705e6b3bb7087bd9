import { HubSpotError } from '../errors/hubspot-error';
import type { RateLimitDecision } from './sliding-window-log';

/** HubSpot's policy name for the public-app limit; @hubspot/api-client retries only on this one. */
export const TEN_SECONDLY_ROLLING = 'TEN_SECONDLY_ROLLING';
/** Our own policy for failed client authentication at the token endpoint. */
export const CLIENT_AUTHENTICATION_FAILURES = 'CLIENT_AUTHENTICATION_FAILURES';

/** The rate-limit group of a public app in one account, as HubSpot names it in 429 bodies. */
export function publicAppGroup(appId: number, hubId: number): string {
  return `publicapp:${appId}:${hubId}`;
}

/** The rate-limit group of a developer account's API key calls. */
export function developerApiKeyGroup(hubId: number): string {
  return `developerapikey:${hubId}`;
}

/** `X-HubSpot-RateLimit-*`, on every response to an authenticated CRM call. */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  return {
    'X-HubSpot-RateLimit-Interval-Milliseconds': String(d.windowMs),
    'X-HubSpot-RateLimit-Max': String(d.limit),
    'X-HubSpot-RateLimit-Remaining': String(d.remaining),
  };
}

/** Whole seconds, rounded up: a client that waits this long finds room again. */
export function retryAfterSeconds(d: RateLimitDecision): string {
  return String(Math.max(1, Math.ceil(d.retryAfterMs / 1000)));
}

/** HubSpot's rate-limit policies, each named in its 429's `policyName`. */
export type HubSpotRateLimitPolicy = typeof TEN_SECONDLY_ROLLING | 'SECONDLY' | 'DAILY';

/** HubSpot's message per policy (@hubspot/api-client matches the SECONDLY one word for word). */
const POLICY_MESSAGES: Record<HubSpotRateLimitPolicy, string> = {
  TEN_SECONDLY_ROLLING: 'You have reached your ten_secondly_rolling limit.',
  SECONDLY: 'You have reached your secondly limit.',
  DAILY: 'You have reached your daily limit.',
};

/**
 * HubSpot's 429 for one of its policies (errorType RATE_LIMIT, policyName), with the headers of
 * that policy: the one builder of the service's own limiter and of injected rate-limit faults.
 */
export function rateLimitExceeded(
  policy: HubSpotRateLimitPolicy,
  headers: Record<string, string>,
  group?: string,
): HubSpotError {
  return HubSpotError.rateLimits(POLICY_MESSAGES[policy], {
    fields: { errorType: 'RATE_LIMIT', policyName: policy, ...(group === undefined ? {} : { groupName: group }) },
    headers,
  });
}

/** HubSpot's 429 for the ten-second rolling limit (errorType RATE_LIMIT, policyName TEN_SECONDLY_ROLLING). */
export function tenSecondlyRollingExceeded(group: string, d: RateLimitDecision): HubSpotError {
  return rateLimitExceeded(
    TEN_SECONDLY_ROLLING,
    { ...rateLimitHeaders(d), 'Retry-After': retryAfterSeconds(d) },
    group,
  );
}

/**
 * The same 429 at the token endpoint (successful token requests past the per-app limit), with
 * `Cache-Control: no-store` like every token-endpoint answer.
 */
export function tokenRequestsExceeded(group: string, d: RateLimitDecision): HubSpotError {
  const error = tenSecondlyRollingExceeded(group, d);
  Object.assign(error.extras.headers!, { 'cache-control': 'no-store', pragma: 'no-cache' });
  return error;
}

/**
 * 429 for a client that keeps failing client authentication at the token endpoint. It keeps the
 * RFC 6749 fields (`error: invalid_client`), since the request did fail authentication, and
 * `Cache-Control: no-store` like every token-endpoint answer.
 */
export function clientAuthenticationThrottled(d: RateLimitDecision): HubSpotError {
  const seconds = retryAfterSeconds(d);
  const message = `Too many failed client authentications; retry after ${seconds} seconds.`;
  return HubSpotError.rateLimits(message, {
    fields: {
      errorType: 'RATE_LIMIT',
      policyName: CLIENT_AUTHENTICATION_FAILURES,
      error: 'invalid_client',
      error_description: message,
    },
    headers: { 'Retry-After': seconds, 'cache-control': 'no-store', pragma: 'no-cache' },
  });
}
