import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  Injectable,
  OnModuleInit,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { AccessTokenClaims } from '../domain/access-token';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AuthenticateBeforeBody, EarlyAuthentication } from '../../platform/http/early-authentication';
import type { RequestWithActor } from '../../platform/http/request-context';
import { accessTokenExpiredError, AccessTokenVerifier } from '../application/access-token-verifier';

const NOT_FOUND_MESSAGE =
  'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview';

const ACCEPTED_SCOPES = 'hubspot:acceptedScopes';

export interface RequestWithToken extends RequestWithActor {
  token?: AccessTokenClaims;
}

/**
 * Checks the OAuth bearer token of the CRM endpoints with the one AccessTokenVerifier (signature and
 * expiry without a store lookup, then the in-memory revocations: revoked tokens, uninstalled installs,
 * installs whose tokens an admin expired), then that the token holds at
 * least one of the accepted scopes (HubSpot's "any of" lists). App tokens (client_credentials) name
 * no account and are refused. A module with bearer endpoints imports AccessTokenVerificationModule
 * (the OAuth module's projection keeps it; in a test app without that module it stays empty).
 */
@Injectable()
export class BearerTokenGuard implements CanActivate, OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly earlyAuthentication: EarlyAuthentication,
  ) {}

  /** The token is checked in onRequest too, so a request without a valid one is refused before its body is read. */
  onModuleInit(): void {
    this.earlyAuthentication.register('bearer', (request) => void this.authenticate(request));
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<RequestWithToken>();
    const accepted =
      this.reflector.getAllAndOverride<string[]>(ACCEPTED_SCOPES, [context.getHandler(), context.getClass()]) ?? [];
    const claims = this.authenticate(request);
    if (accepted.length > 0 && !accepted.some((s) => claims.scopes.includes(s))) throw missingAnyScopeError(accepted);
    request.token = claims;
    request.actor = `app:${claims.appId}/hub:${claims.hubId}/user:${claims.userId}`;
    return true;
  }

  /** The token's claims: signed, unexpired, not an app token, not revoked; else the 401 (also used by the test controls). */
  authenticate(request: Pick<RequestWithToken, 'headers'>): AccessTokenClaims {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer ([^\s]+)$/i.exec(header.trim()) : null;
    if (!match) throw HubSpotError.invalidAuthentication(NOT_FOUND_MESSAGE);
    const check = this.verifier.check(match[1]!);
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

/** HubSpot's 403 for a token that holds none of the accepted scopes. */
export function missingAnyScopeError(anyOf: readonly string[]): HubSpotError {
  return HubSpotError.missingScopes(
    [...anyOf],
    `This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.`,
  );
}

/** `@RequireScopes('developers-read', 'private-apps-read')`: bearer token with any of these scopes. */
export const RequireScopes = (...anyOf: string[]) =>
  applyDecorators(
    AuthenticateBeforeBody('bearer'),
    SetMetadata(ACCEPTED_SCOPES, anyOf),
    UseGuards(BearerTokenGuard),
    ApiBearerAuth(),
  );

/** `@Token() token: AccessTokenClaims` — the verified claims (hub, user, app, scopes). */
export const Token = createParamDecorator((_: unknown, ctx: ExecutionContext): AccessTokenClaims => {
  const token = ctx.switchToHttp().getRequest<RequestWithToken>().token;
  if (!token) throw new Error('@Token() used on a route without @RequireScopes()');
  return token;
});
