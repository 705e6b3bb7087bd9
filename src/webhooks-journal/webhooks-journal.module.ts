import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { JournalFileUrls } from './application/journal-file-urls';
import { JournalReader } from './application/journal-reader';
import { JournalAppHandler } from './application/journal.commands';
import { JournalQueries } from './application/journal.queries';
import { journalEvents } from './domain/journal-events';
import { JournalFilesController } from './http/journal-files.controller';
import { JournalController, LocalJournalController } from './http/journal.controller';
import { JournalSubscriptionsController } from './http/journal-subscriptions.controller';
import { WebhooksJournalProjection } from './projections/webhooks-journal.projection';

/**
 * The webhooks journal (docs/webhooks-journal.md): HubSpot's 2026-03 pull model, read from the event
 * history. Subscriptions, filters and snapshot requests per app (`journal.app-{appId}`); the
 * webhooks-journal projection matches the records', associations' and installs' published events
 * against them as of each event's position; reads answer signed, expiring URLs of entry files
 * this service serves. Called with app tokens (client_credentials).
 */
@Module(
  EventSourcingModule.forFeature({
    events: journalEvents,
    projections: [WebhooksJournalProjection],
    commandHandlers: [JournalAppHandler],
    imports: [DirectoryModule, AccessTokenVerificationModule],
    controllers: [JournalSubscriptionsController, JournalController, LocalJournalController, JournalFilesController],
    providers: [JournalQueries, JournalReader, JournalFileUrls],
  }),
)
export class WebhooksJournalModule {}
