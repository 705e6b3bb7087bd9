import { createParamDecorator, type ExecutionContext, Injectable, type OnModuleInit } from '@nestjs/common';
import type { AccessTokenClaims } from '../domain/access-token';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { Authenticators, type Caller } from '../../platform/http/authentication';
import type { RequestWithActor } from '../../platform/http/request-context';
import { accessTokenExpiredError, AccessTokenVerifier } from '../application/access-token-verifier';

const NOT_FOUND_MESSAGE =
  'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview';

export interface RequestWithToken extends RequestWithActor {
  token?: AccessTokenClaims;
}

/** The `Authorization: Bearer` token of a request, or HubSpot's 401 for a missing or malformed header. */
export function presentedBearerToken(request: Pick<RequestWithToken, 'headers'>): string {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/i.exec(header.trim()) : null;
  if (!match) throw credentialsNotFound();
  return match[1]!;
}

/** HubSpot's 401 when no usable credential was presented. */
export const credentialsNotFound = () => HubSpotError.invalidAuthentication(NOT_FOUND_MESSAGE);

/** A caller by access token: its claims, for the modules whose credentials build on it (cards' developer routes). */
export interface BearerCaller extends Caller {
  claims: AccessTokenClaims;
}

/**
 * The `bearer` credential of `@Authenticated({ by: 'bearer', ... })`: the OAuth access token of the
 * CRM endpoints, checked by the one AccessTokenVerifier (signature and expiry without a store lookup,
 * then the in-memory revocations: revoked tokens, uninstalled installs, installs whose tokens an
 * admin expired). App tokens (client_credentials) name no account and are refused. Its claims go on
 * the request for `@Token()` once the route admitted them; the guard checks the route's scopes against them. A module with bearer
 * endpoints imports AccessTokenVerificationModule (the OAuth module's projection keeps the
 * revocations; in a test app without that module they stay empty).
 */
@Injectable()
export class BearerAuthentication implements OnModuleInit {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly authenticators: Authenticators,
  ) {}

  onModuleInit(): void {
    this.authenticators.register('bearer', (request) => this.authenticate(request));
  }

  private authenticate(request: RequestWithToken): BearerCaller {
    const claims = this.verify(request);
    return {
      actor: `app:${claims.appId}/hub:${claims.hubId}/user:${claims.userId}`,
      scopes: claims.scopes,
      claims,
      admit: (admitted: RequestWithToken) => {
        admitted.token = claims;
      },
    };
  }

  /** The token's claims: signed, unexpired, not an app token, not revoked; else the 401. */
  private verify(request: Pick<RequestWithToken, 'headers'>): AccessTokenClaims {
    const check = this.verifier.check(presentedBearerToken(request));
    switch (check.status) {
      case 'active':
      case 'revoked':
        if (check.claims.appToken) {
          throw HubSpotError.invalidAuthentication(
            'This endpoint does not accept an app token (client_credentials): it acts on an account, so use the access token of an install of the app in that account.',
          );
        }
        if (check.status === 'active') return check.claims;
        throw HubSpotError.invalidAuthentication(NOT_FOUND_MESSAGE);
      case 'expired':
        throw accessTokenExpiredError(check.expiredAt, check.now, 'api-call');
      default:
        throw HubSpotError.invalidAuthentication(NOT_FOUND_MESSAGE);
    }
  }
}

/** `@Token() token: AccessTokenClaims` — the verified claims (hub, user, app, scopes). */
export const Token = createParamDecorator((_: unknown, ctx: ExecutionContext): AccessTokenClaims => {
  const token = ctx.switchToHttp().getRequest<RequestWithToken>().token;
  if (!token) throw new Error("@Token() used on a route without @Authenticated({ by: 'bearer' })");
  return token;
});
