import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/index';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { ClientAuthenticator } from './application/client-authentication';
import { InstallQueries } from './application/install.queries';
import { InstallService } from './application/install.service';
import { OAuthStreams } from './application/oauth-streams';
import { TokenMetadataService } from './application/token-metadata.service';
import { TokenService } from './application/token.service';
import { OAuthEventType } from './domain/oauth-events';
import { InstallsAdminController } from './http/installs-admin.controller';
import { TokenMetadataController } from './http/token-metadata.controller';
import { TokenController } from './http/token.controller';
import { OAuthBootstrap } from './oauth-bootstrap';
import { OAuthProjection } from './projections/oauth.projection';

/**
 * OAuth: installs, authorization codes, the token endpoint, token metadata, refresh-token
 * deletion. The install page (src/oauth/install-page) drives InstallService; other modules read
 * installs through InstallQueries and authorize their endpoints with the shared bearer guard.
 */
@Module(
  EventSourcingModule.forFeature({
    events: Object.fromEntries(Object.values(OAuthEventType).map((t) => [t, null])),
    projections: [OAuthProjection],
    imports: [DirectoryModule],
    controllers: [TokenController, TokenMetadataController, InstallsAdminController],
    providers: [
      OAuthBootstrap,
      OAuthStreams,
      InstallService,
      InstallQueries,
      ClientAuthenticator,
      TokenService,
      TokenMetadataService,
    ],
    exports: [InstallService, InstallQueries],
  }),
)
export class OAuthModule {}
