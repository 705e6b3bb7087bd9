import type { INestApplicationContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Authenticators, routeAuthenticationOf } from '../../platform/http/authentication';
import { ClientAuthenticator, OAuthForm } from '../application/oauth-form';
import type { BearerCaller } from './bearer-authentication';
import { tokenFormRulesOf } from './token.controller';

/** The app a request is authenticated as, and the account it acts on when that is known before the handler. */
export interface RequestApp {
  appId: number;
  /** null at the token endpoints: the account comes from the code or refresh token, read by the handler. */
  hubId: number | null;
}

/**
 * Who a request is as an app, found the same way the route itself will check it: the bearer guard's
 * own token check (answered once per request) on bearer routes (and on developer routes with an Authorization header), the token
 * endpoint's own client authentication there. null when the request is not (validly) an app's; the
 * route then answers its usual 401. For the test controls, which act before the handler runs.
 */
export function requestAppResolver(app: INestApplicationContext): (request: FastifyRequest) => RequestApp | null {
  const authenticators = app.get(Authenticators, { strict: false });
  let clients: ClientAuthenticator | null = null;
  try {
    clients = app.get(ClientAuthenticator, { strict: false });
  } catch {
    clients = null; // a test app without the OAuth module has no token endpoint
  }
  return (request) => {
    const kind = routeAuthenticationOf(request.routeOptions.config);
    if (kind === 'bearer' || (kind === 'developer' && request.headers.authorization !== undefined)) {
      try {
        // The route's own check, answered once per request: the guard reuses it.
        const caller = authenticators.authenticate('bearer', request) as BearerCaller | undefined;
        return caller ? { appId: caller.claims.appId, hubId: caller.claims.hubId } : null;
      } catch {
        return null;
      }
    }
    const form =
      kind === undefined && request.method === 'POST' ? tokenFormRulesOf(request.routeOptions.url ?? '') : undefined;
    if (form !== undefined && clients !== null) {
      try {
        // The endpoint's own reading of the credentials (HTTP Basic, form body, and at v1 the query for the secret).
        const client = clients.authenticate(new OAuthForm(request, form).credentials());
        return { appId: client.appId, hubId: null };
      } catch {
        return null;
      }
    }
    return null;
  };
}
