import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { commandHandlersFor } from '../platform/commands/command-handlers';
import { AuthorizeRequestValidator } from './application/authorize-request.validator';
import { ClientAuthenticator } from './application/oauth-form';
import { ApproveInstallHandler } from './application/commands/approve-install';
import { IssueTokenHandler } from './application/commands/issue-token';
import { AuthorizationCodeRedemption } from './application/commands/redeem-authorization-code';
import { DeleteRefreshTokenHandler } from './application/commands/delete-refresh-token';
import { UninstallHandler } from './application/commands/uninstall';
import { ExpireInstallAccessTokensHandler } from './application/commands/expire-install-access-tokens';
import { RevokeTokenHandler } from './application/commands/revoke-token';
import { AccessTokenVerificationModule } from './access-token-verification.module';
import { AuthorizationServerMetadataController } from './http/authorization-server-metadata.controller';
import { AccessTokenRevocationsProjection } from './projections/access-token-revocations.projection';
import { InstallFixtures } from './application/install-fixtures';
import { InstallQueries } from './application/install.queries';
import { TokenMetadataService } from './application/token-metadata.service';
import { oauthRetention } from './domain/oauth-retention';
import { oauthEvents } from './domain/oauth-events';
import { AccountInfoController, AppUninstallsController } from './http/app-lifecycle.controller';
import { InstallsAdminController } from './http/installs-admin.controller';
import { TokenMetadataController } from './http/token-metadata.controller';
import { TokenController } from './http/token.controller';
import { OAuthProjection } from './projections/oauth.projection';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { INSTALL_CLOCK_COMMANDS, InstallClockHandler } from './application/commands/install-clock';
import { installClockEvents } from './domain/install-clock';
import { InstallClockController } from './http/install-clock.controller';
import { InstallClocksProjection } from './projections/install-clocks.projection';
import { OutstandingTokensProjection } from './projections/outstanding-tokens.projection';
import { OutstandingTokensQueries } from './application/outstanding-tokens.queries';

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
    projections: [
      OAuthProjection,
      AccessTokenRevocationsProjection,
      InstallClocksProjection,
      OutstandingTokensProjection,
    ],
    // One handler per command; a flow across streams is one named process (ApproveInstall, IssueToken, RevokeToken).
    commandHandlers: [
      ApproveInstallHandler,
      UninstallHandler,
      IssueTokenHandler,
      DeleteRefreshTokenHandler,
      RevokeTokenHandler,
      ExpireInstallAccessTokensHandler,
      ...commandHandlersFor(InstallClockHandler, INSTALL_CLOCK_COMMANDS),
    ],
    imports: [DirectoryModule, AccessTokenVerificationModule, RateLimitModule],
    controllers: [
      TokenController,
      TokenMetadataController,
      InstallsAdminController,
      AuthorizationServerMetadataController,
      AppUninstallsController,
      AccountInfoController,
      InstallClockController,
    ],
    providers: [
      AuthorizeRequestValidator,
      InstallQueries,
      OutstandingTokensQueries,
      ClientAuthenticator,
      TokenMetadataService,
      AuthorizationCodeRedemption,
      InstallFixtures,
    ],
    exports: [AuthorizeRequestValidator, InstallQueries, OutstandingTokensQueries, InstallFixtures],
  }),
)
export class OAuthModule {}
