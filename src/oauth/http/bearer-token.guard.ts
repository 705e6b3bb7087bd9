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
import { SigningKeyring } from '../../platform/security/signing-keys';
import { AccessTokenClaims, verifyAccessToken } from '../domain/access-token';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { AuthenticateBeforeBody, EarlyAuthentication } from '../../platform/http/early-authentication';
import type { RequestWithActor } from '../../platform/http/request-context';
import { AccessTokenRevocations } from '../application/access-token-revocations';
import { InstallClocks } from '../application/install-clocks';

const NOT_FOUND_MESSAGE =
  'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview';

/** HubSpot's 401 for an expired token: how long ago, and (in `context`) when it expired. */
function expiredError(expiredAt: number, now: number): HubSpotError {
  const minutes = Math.max(1, Math.floor((now - expiredAt) / 60_000));
  return new HubSpotError(
    401,
    'EXPIRED_AUTHENTICATION',
    `The OAuth token used to make this call expired ${minutes} minute(s) ago.`,
    { context: { expiredAt: [new Date(expiredAt).toISOString()] } },
  );
}

const ACCEPTED_SCOPES = 'hubspot:acceptedScopes';

export interface RequestWithToken extends RequestWithActor {
  token?: AccessTokenClaims;
}

/**
 * Checks the OAuth bearer token of the CRM endpoints: signature and expiry without a store lookup,
 * then the in-memory revocations (revoked tokens, uninstalled installs, installs whose tokens an
 * admin expired: AccessTokenRevocations, fed from the event feed), then that the token holds at
 * least one of the accepted scopes (HubSpot's "any of" lists). App tokens (client_credentials) name
 * no account and are refused. A module with bearer endpoints imports AccessTokenRevocationsModule
 * (the OAuth module's projection keeps it; in a test app without that module it stays empty).
 */
@Injectable()
export class BearerTokenGuard implements CanActivate, OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: SigningKeyring,
    private readonly revocations: AccessTokenRevocations,
    private readonly earlyAuthentication: EarlyAuthentication,
    private readonly installClocks: InstallClocks,
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
    const result = verifyAccessToken(match[1]!, this.keys, this.installClocks.nowOf);
    if (!result.ok) {
      if (result.reason === 'expired')
        throw expiredError(result.claims.expiresAt, this.installClocks.nowOf(result.claims));
      throw HubSpotError.invalidAuthentication(NOT_FOUND_MESSAGE);
    }
    if (result.claims.appToken) {
      throw HubSpotError.invalidAuthentication(
        'This endpoint does not accept an app token (client_credentials): it acts on an account, so use the access token of an install of the app in that account.',
      );
    }
    const verdict = this.revocations.verdict(result.claims);
    if (verdict?.status === 'revoked') throw HubSpotError.invalidAuthentication(NOT_FOUND_MESSAGE);
    if (verdict?.status === 'expired') throw expiredError(verdict.expiredAt, this.installClocks.nowOf(result.claims));
    return result.claims;
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
