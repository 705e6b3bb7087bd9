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
// For the console (src/console): the admin API's install commands, and the install page's HTML helpers and look.
export { Uninstall } from './application/commands/uninstall';
export { ExpireInstallAccessTokens } from './application/commands/expire-install-access-tokens';
export { AdvanceInstallClock, ResetInstallClock } from './application/commands/install-clock';
export { MAX_INSTALL_CLOCK_OFFSET_SECONDS } from './domain/install-clock';
export { escapeHtml, html, Html, INSTALL_PAGE_STYLE } from './install-page/views/html';
