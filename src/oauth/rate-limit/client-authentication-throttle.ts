import { parseBasicAuthorization } from '../application/client-authentication';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorBody } from '../../platform/errors/hubspot-error';
import { clientAuthenticationThrottled } from '../../platform/rate-limit/rate-limit-responses';
import type { RateLimiters } from './rate-limiters';

import { CLIENT_AUTHENTICATED_PATHS } from '../http/token-request';

/**
 * Throttles failed client authentication at the token endpoint, per client_id and per remote
 * address. The token endpoint answers a failed client authentication with 401 (`invalid_client`,
 * and only then); each such answer is counted under both keys. Once either key has reached its
 * limit inside the window, further failed authentications are answered 429 with Retry-After
 * instead of 401.
 *
 * Successful authentications are neither counted nor refused: client_ids are public (they are in
 * every install URL), so refusing a client_id outright would let anyone lock an app out of its
 * own token endpoint. Client secrets are 122-bit random values, so the throttle is there to make
 * misbehaving clients back off and to make abuse visible (`http_rate_limited_total`), not to stop
 * guessing, which is already hopeless.
 */
export function installClientAuthenticationThrottle(fastify: FastifyInstance, limiters: RateLimiters): void {
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (
      reply.statusCode !== 401 ||
      request.method !== 'POST' ||
      !CLIENT_AUTHENTICATED_PATHS.has(request.routeOptions.url ?? '')
    ) {
      return payload;
    }
    const keys = [`address:${request.ip}`];
    const clientId = presentedClientId(request);
    if (clientId !== undefined) keys.push(`client:${clientId}`);
    const log = limiters.clientAuthFailures;
    // Each key's decision from before this failure is counted (one atomic step per key).
    const decisions = await Promise.all(keys.map(async (k) => ({ key: k, d: await log.checkThenRecord(k) })));
    const over = decisions.filter((x) => !x.d.allowed);
    if (over.length === 0) return payload;

    // The longest wait of the keys that are over their limit.
    const worst = over.reduce((a, b) => (b.d.retryAfterMs > a.d.retryAfterMs ? b : a));
    const error = clientAuthenticationThrottled(worst.d);
    limiters.noteLimited({
      policy: 'CLIENT_AUTHENTICATION_FAILURES',
      key: worst.key.startsWith('client:') ? 'client' : 'address', // never the address or id itself in metrics/events
      retryAfterMs: worst.d.retryAfterMs,
    });
    void reply.removeHeader('www-authenticate');
    void reply.code(429).headers(error.extras.headers ?? {});
    void reply.header('content-type', 'application/json;charset=utf-8');
    return JSON.stringify(toErrorBody(error, String(request.id)));
  });
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
