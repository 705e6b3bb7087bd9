import { Module } from '@nestjs/common';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AppWebhooksModule } from '../app-webhooks';
import { CardsModule } from '../cards';
import { CrmAssociationsModule } from '../crm-associations';
import { CrmRecordsModule } from '../crm-records';
import { CrmSchemaModule } from '../crm-schema';
import { CrmSearchModule } from '../crm-search';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule, OAuthModule } from '../oauth';
import { TestControlsModule } from '../test-controls';
import { AuditIndex } from './application/audit-index';
import { AuditTrail } from './application/audit-trail';
import { AuditIndexProjection } from './projections/audit-index.projection';
import { LiveTail } from './application/live-tail';
import { ConsoleSignInThrottle } from './application/sign-in-throttle';
import { ConsoleAuditController } from './http/console-audit.controller';
import { ConsoleAuthController } from './http/console-auth.controller';
import { ConsoleControlsController } from './http/console-controls.controller';
import { ConsoleDirectoryController } from './http/console-directory.controller';
import { ConsoleRecordsController } from './http/console-records.controller';
import { ConsoleResponses } from './http/console-responses';
import { ConsoleSessions } from './http/console-session';

/**
 * The admin console at /console (docs/console.md): server-rendered pages over the other modules'
 * published queries and the admin API's own commands; no events of its own, one read model (the
 * audit trail's index of events by account and app).
 */
@Module(
  EventSourcingModule.forFeature({
    events: {},
    projections: [AuditIndexProjection],
    imports: [
      DirectoryModule,
      OAuthModule,
      AccessTokenVerificationModule,
      AppWebhooksModule,
      CardsModule,
      CrmRecordsModule,
      CrmAssociationsModule,
      CrmSchemaModule,
      CrmSearchModule,
      TestControlsModule,
    ],
    controllers: [
      ConsoleAuthController,
      ConsoleDirectoryController,
      ConsoleAuditController,
      ConsoleRecordsController,
      ConsoleControlsController,
    ],
    providers: [ConsoleSessions, ConsoleResponses, AuditTrail, AuditIndex, LiveTail, ConsoleSignInThrottle],
  }),
)
export class ConsoleModule {}
