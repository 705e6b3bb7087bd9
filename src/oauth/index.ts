/**
 * The OAuth module's public surface: what other modules and the app may import. Everything else
 * under src/oauth is internal (lint enforces it).
 */
export { OAuthModule } from './oauth.module';
export { AccessTokenVerificationModule } from './access-token-verification.module';
export { InstallPageModule } from './install-page/install-page.module';
export { RateLimitModule, installRateLimits } from './rate-limit/rate-limit.module';
export type { AccessTokenClaims } from './domain/access-token';
export { Token, type BearerCaller } from './http/bearer-authentication';
export { AppToken, type AppTokenCaller } from './http/app-authentication';
export { requestAppResolver, type RequestApp } from './http/request-app';
export { InstallFixtures, type DeclaredInstall } from './application/install-fixtures';
