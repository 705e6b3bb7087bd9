import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AuthorizeRequestValidator } from './application/authorize-request.validator';
import { ClientAuthenticator } from './application/client-authentication';
import { ApproveInstallHandler } from './application/commands/approve-install';
import { IssueAccessTokenFromRefreshTokenHandler } from './application/commands/issue-access-token-from-refresh-token';
import { IssueAuthorizationCodeHandler } from './application/commands/issue-authorization-code';
import { IssueTokenHandler } from './application/commands/issue-token';
import { RedeemAuthorizationCodeProcess } from './application/commands/redeem-authorization-code';
import { RevokeRefreshTokenHandler } from './application/commands/revoke-refresh-token';
import { UninstallHandler } from './application/commands/uninstall';
import { ExpireInstallAccessTokensHandler } from './application/commands/expire-install-access-tokens';
import { IssueAppAccessTokenHandler } from './application/commands/issue-app-access-token';
import { RevokeAccessTokenHandler } from './application/commands/revoke-access-token';
import { RevokeTokenProcess } from './application/commands/revoke-token';
import { AccessTokenRevocationsModule } from './access-token-revocations.module';
import { AuthorizationServerMetadataController } from './http/authorization-server-metadata.controller';
import { OAuthTokensController } from './http/oauth-tokens.controller';
import { AccessTokenRevocationsProjection } from './projections/access-token-revocations.projection';
import { InstallQueries } from './application/install.queries';
import { TokenMetadataService } from './application/token-metadata.service';
import { oauthRetention } from './domain/oauth-retention';
import { oauthEvents } from './domain/oauth-events';
import { AccountInfoController, AppUninstallsController } from './http/app-lifecycle.controller';
import { InstallsAdminController } from './http/installs-admin.controller';
import { TokenMetadataController } from './http/token-metadata.controller';
import { TokenController } from './http/token.controller';
import { OAuthBootstrap } from './oauth-bootstrap';
import { OAuthProjection } from './projections/oauth.projection';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { AdvanceInstallClockHandler, ResetInstallClockHandler } from './application/commands/install-clock';
import { installClockEvents } from './domain/install-clock';
import { InstallClockController } from './http/install-clock.controller';
import { InstallClocksProjection } from './projections/install-clocks.projection';

/**
 * OAuth: installs, authorization codes, the token endpoint, token metadata, refresh-token
 * deletion. The install page (src/oauth/install-page) checks requests with AuthorizeRequestValidator
 * and sends ApproveInstall on the CommandBus; other modules read installs through InstallQueries
 * and authorize their endpoints with the shared bearer guard.
 */
@Module(
  EventSourcingModule.forFeature({
    events: { ...oauthEvents, ...installClockEvents },
    retention: oauthRetention,
    projections: [OAuthProjection, AccessTokenRevocationsProjection, InstallClocksProjection],
    commandHandlers: [
      ApproveInstallHandler,
      IssueAuthorizationCodeHandler,
      UninstallHandler,
      RedeemAuthorizationCodeProcess,
      IssueAccessTokenFromRefreshTokenHandler,
      IssueTokenHandler,
      RevokeRefreshTokenHandler,
      IssueAppAccessTokenHandler,
      RevokeAccessTokenHandler,
      RevokeTokenProcess,
      ExpireInstallAccessTokensHandler,
      AdvanceInstallClockHandler,
      ResetInstallClockHandler,
    ],
    imports: [DirectoryModule, AccessTokenRevocationsModule, RateLimitModule],
    controllers: [
      TokenController,
      OAuthTokensController,
      TokenMetadataController,
      InstallsAdminController,
      AuthorizationServerMetadataController,
      AppUninstallsController,
      AccountInfoController,
      InstallClockController,
    ],
    providers: [OAuthBootstrap, AuthorizeRequestValidator, InstallQueries, ClientAuthenticator, TokenMetadataService],
    exports: [AuthorizeRequestValidator, InstallQueries],
  }),
)
export class OAuthModule {}
