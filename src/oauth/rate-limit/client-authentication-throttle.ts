import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { clientAuthenticationThrottled } from '../../platform/rate-limit/rate-limit-responses';
import { parseBasicAuthorization } from '../application/oauth-form';
import { RateLimiters } from './rate-limiters';

/**
 * Throttles failed client authentication at the OAuth token endpoints, per client_id and per remote
 * address. Those endpoints answer a failed client authentication with 401 (`invalid_client`, and
 * only then); each such answer is counted under both keys. Once either key has reached its limit
 * inside the window, further failed authentications are answered 429 with Retry-After instead of
 * 401. The token controller asks it where it makes the answer.
 *
 * Successful authentications are neither counted nor refused: client_ids are public (they are in
 * every install URL), so refusing a client_id outright would let anyone lock an app out of its
 * own token endpoint. Client secrets are 122-bit random values, so the throttle is there to make
 * misbehaving clients back off and to make abuse visible (`http_rate_limited_total`), not to stop
 * guessing, which is already hopeless. A security control: always on, whatever RATE_LIMIT_ENABLED says.
 */
@Injectable()
export class ClientAuthenticationThrottle {
  constructor(private readonly limiters: RateLimiters) {}

  /** What to answer for `error`: itself, unless it is a failed authentication past the limit (then 429). */
  async answerFor(error: unknown, request: FastifyRequest): Promise<unknown> {
    if (!(error instanceof HubSpotError) || error.httpStatus !== 401) return error;
    const keys = [`address:${request.ip}`];
    const clientId = presentedClientId(request);
    if (clientId !== undefined) keys.push(`client:${clientId}`);
    const log = this.limiters.clientAuthFailures;
    // Each key's decision from before this failure is counted (one atomic step per key).
    const decisions = await Promise.all(keys.map(async (k) => ({ key: k, d: await log.checkThenRecord(k) })));
    const over = decisions.filter((x) => !x.d.allowed);
    if (over.length === 0) return error;

    // The longest wait of the keys that are over their limit.
    const worst = over.reduce((a, b) => (b.d.retryAfterMs > a.d.retryAfterMs ? b : a));
    this.limiters.noteLimited({
      policy: 'CLIENT_AUTHENTICATION_FAILURES',
      key: worst.key.startsWith('client:') ? 'client' : 'address', // never the address or id itself in metrics/events
      retryAfterMs: worst.d.retryAfterMs,
    });
    // Its own headers (Retry-After, no-store), and no WWW-Authenticate: retrying is what it asks.
    return clientAuthenticationThrottled(worst.d);
  }
}

/** The client_id the request named, from the form body or HTTP Basic; undefined when unreadable. */
function presentedClientId(request: FastifyRequest): string | undefined {
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && typeof body.client_id === 'string' && body.client_id !== '') {
    return body.client_id.slice(0, 256);
  }
  // The same parser as the authenticator: whatever it accepts is counted under that client id.
  const basic = parseBasicAuthorization(request.headers.authorization);
  return basic && basic !== 'malformed' && basic.clientId !== '' ? basic.clientId.slice(0, 256) : undefined;
}
