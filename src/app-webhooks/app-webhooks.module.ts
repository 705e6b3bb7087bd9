import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import {
  AppWebhooksHandler,
  DeliveryRecordHandler,
  DispatchLeaseHandler,
  PruneDeliveriesHandler,
  ResealSigningSecretHandler,
} from './application/app-webhooks.commands';
import { DispatchLeases } from './application/dispatch-leases';
import { WebhookSigningSecrets } from './application/signing-secrets';
import { WebhookDispatcher } from './application/webhook-dispatcher';
import { WebhooksQueries } from './application/webhooks.queries';
import { webhooksEvents } from './domain/webhook-events';
import { WebhookDeliveriesController } from './http/webhook-deliveries.controller';
import { WebhooksController } from './http/webhooks.controller';
import { WebhookOutboxProjection } from './projections/webhook-outbox.projection';

/**
 * App webhooks (docs/webhooks.md): settings and subscriptions per app (HubSpot's webhooks API at
 * v3, 2026-03 and 2026-09), the outbox read model that matches the CRM's record events against
 * them as of each event's position, and the dispatcher that signs and sends HubSpot's batches and
 * retries them on the installs' clocks; the admin delivery log.
 */
@Module(
  EventSourcingModule.forFeature({
    events: webhooksEvents,
    projections: [WebhookOutboxProjection],
    reactors: [WebhookDispatcher],
    commandHandlers: [
      AppWebhooksHandler,
      DeliveryRecordHandler,
      DispatchLeaseHandler,
      ResealSigningSecretHandler,
      PruneDeliveriesHandler,
    ],
    imports: [DirectoryModule, AccessTokenVerificationModule],
    controllers: [WebhooksController, WebhookDeliveriesController],
    providers: [WebhooksQueries, DispatchLeases, WebhookSigningSecrets],
    exports: [WebhooksQueries],
  }),
)
export class AppWebhooksModule {}
