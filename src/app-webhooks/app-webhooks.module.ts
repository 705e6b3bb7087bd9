import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import {
  AppWebhooksHandler,
  DeliveryRecordHandler,
  ResealSigningSecretHandler,
} from './application/app-webhooks.commands';
import { WebhookSigningSecrets } from './application/signing-secrets';
import { WebhooksQueries } from './application/webhooks.queries';
import { DeliveryThread } from './delivery-thread/delivery-thread';
import { webhooksEvents } from './domain/webhook-events';
import { WebhookDeliveriesController } from './http/webhook-deliveries.controller';
import { WebhooksController } from './http/webhooks.controller';
import { WebhookSettingsProjection } from './projections/webhook-settings.projection';
import './application/attempt-stream-ids';

/**
 * App webhooks (docs/webhooks.md): settings and subscriptions per app (HubSpot's webhooks API at
 * v3, 2026-03 and 2026-09); on a delivery thread of its own, the outbox read model that matches the
 * CRM's record events against them as of each event's position and the dispatcher that signs and
 * sends HubSpot's batches and retries them on the installs' clocks; the admin delivery log.
 */
@Module(
  EventSourcingModule.forFeature({
    events: webhooksEvents,
    projections: [WebhookSettingsProjection],
    reactors: [DeliveryThread],
    commandHandlers: [AppWebhooksHandler, DeliveryRecordHandler, ResealSigningSecretHandler],
    imports: [DirectoryModule, AccessTokenVerificationModule],
    controllers: [WebhooksController, WebhookDeliveriesController],
    providers: [WebhooksQueries, WebhookSigningSecrets],
    exports: [WebhooksQueries, DeliveryThread],
  }),
)
export class AppWebhooksModule {}
