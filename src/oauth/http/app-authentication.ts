import { createParamDecorator, type ExecutionContext, Injectable, type OnModuleInit } from '@nestjs/common';
import type { AccessTokenClaims } from '../domain/access-token';
import { HubSpotError } from '../../platform/errors/hubspot-error';
import { Authenticators } from '../../platform/http/authentication';
import { accessTokenExpiredError, AccessTokenVerifier } from '../application/access-token-verifier';
import { credentialsNotFound, presentedBearerToken, type RequestWithToken } from './bearer-authentication';

/** The app a request was authenticated as by its app token (`@Authenticated({ by: 'app' })`). */
export interface AppTokenCaller {
  appId: number;
  scopes: readonly string[];
}

/**
 * The `app` credential of `@Authenticated({ by: 'app', ... })`: an app token of the client_credentials
 * grant, checked by the one AccessTokenVerifier (signature, expiry, revocations). An install's
 * access token acts for an account, not for the app, and is refused: the app's own endpoints (the
 * webhooks journal) span every account it is installed in.
 */
@Injectable()
export class AppTokenAuthentication implements OnModuleInit {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly authenticators: Authenticators,
  ) {}

  onModuleInit(): void {
    this.authenticators.register('app', (request: RequestWithToken) => {
      const claims = this.verify(request);
      return {
        actor: `app:${claims.appId}`,
        scopes: claims.scopes,
        admit: (admitted: RequestWithToken) => {
          admitted.token = claims;
        },
      };
    });
  }

  private verify(request: Pick<RequestWithToken, 'headers'>): AccessTokenClaims {
    const check = this.verifier.check(presentedBearerToken(request));
    switch (check.status) {
      case 'active':
        if (!check.claims.appToken) {
          throw HubSpotError.invalidAuthentication(
            "This endpoint takes an app token (the client_credentials grant of the app's client id and secret), not an install's access token.",
          );
        }
        return check.claims;
      case 'expired':
        throw accessTokenExpiredError(check.expiredAt, check.now, 'api-call');
      default:
        throw credentialsNotFound();
    }
  }
}

/** `@AppToken() app: AppTokenCaller` — the app of a route marked `@Authenticated({ by: 'app' })`. */
export const AppToken = createParamDecorator((_: unknown, ctx: ExecutionContext): AppTokenCaller => {
  const token = ctx.switchToHttp().getRequest<RequestWithToken>().token;
  if (!token?.appToken) throw new Error("@AppToken() used on a route without @Authenticated({ by: 'app' })");
  return { appId: token.appId, scopes: token.scopes };
});
