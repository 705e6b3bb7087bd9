import { HubSpotError } from '../../platform/errors/hubspot-error';
import {
  publicAppGroup,
  rateLimitExceeded,
  tenSecondlyRollingExceeded,
} from '../../platform/rate-limit/rate-limit-responses';
import type { Tier } from '../../platform/tiers';
import type { FaultResponse } from '../domain/fault-spec';

/** HubSpot's daily API call limits per subscription tier (its published figures for private apps). */
const DAILY_LIMITS: Record<Tier, number> = {
  free: 250_000,
  starter: 250_000,
  professional: 625_000,
  enterprise: 1_000_000,
};
/** The per-second limit HubSpot names in X-HubSpot-RateLimit-Secondly. */
const SECONDLY_LIMIT = 10;

const ERRORS: Record<500 | 502 | 503 | 504, [category: string, message: string]> = {
  500: ['INTERNAL_ERROR', 'internal error'],
  502: ['BAD_GATEWAY', 'Bad Gateway'],
  503: ['SERVICE_UNAVAILABLE', 'Service Unavailable'],
  504: ['GATEWAY_TIMEOUT', 'Gateway Timeout'],
};

export interface FaultAnswerContext {
  appId: number;
  hubId: number | null;
  /** The account's tier, when the request names one (DAILY's header). */
  tier: Tier | null;
  /** The service's own public-app limit (TEN_SECONDLY_ROLLING's headers). */
  publicAppLimit: { windowMs: number; max: number };
  now: number;
}

/**
 * The HubSpot Error an injected rate-limit or error fault answers with: the service's own 429
 * builder with the headers of the policy (Retry-After: the window for TEN_SECONDLY_ROLLING, a
 * second for SECONDLY, the time to the next midnight UTC for DAILY), or a 5xx Error body.
 */
export function faultAnswer(
  response: Extract<FaultResponse, { kind: 'rate-limit' | 'error' }>,
  c: FaultAnswerContext,
): HubSpotError {
  if (response.kind === 'error') {
    const [category, message] = ERRORS[response.status];
    return new HubSpotError(response.status, category, message);
  }
  switch (response.policy) {
    case 'TEN_SECONDLY_ROLLING': {
      const group = c.hubId === null ? `publicapp:${c.appId}` : publicAppGroup(c.appId, c.hubId);
      const { windowMs, max } = c.publicAppLimit;
      return tenSecondlyRollingExceeded(group, {
        allowed: false,
        limit: max,
        remaining: 0,
        windowMs,
        retryAfterMs: windowMs,
      });
    }
    case 'SECONDLY':
      return rateLimitExceeded('SECONDLY', {
        'X-HubSpot-RateLimit-Secondly': String(SECONDLY_LIMIT),
        'X-HubSpot-RateLimit-Secondly-Remaining': '0',
        'Retry-After': '1',
      });
    case 'DAILY': {
      const day = 86_400_000;
      const untilMidnight = Math.max(1, Math.ceil((day - (c.now % day)) / 1000));
      return rateLimitExceeded('DAILY', {
        'X-HubSpot-RateLimit-Daily': String(DAILY_LIMITS[c.tier ?? 'free']),
        'X-HubSpot-RateLimit-Daily-Remaining': '0',
        'Retry-After': String(untilMidnight),
      });
    }
  }
}
