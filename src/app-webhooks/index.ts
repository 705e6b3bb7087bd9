/** The app webhooks module's public surface. Everything else under src/app-webhooks is internal (lint enforces it). */
export { AppWebhooksModule } from './app-webhooks.module';
// The admin API's redelivery command (the console's redeliver form sends the same).
export { DeliveryRecordBusCommand } from './application/app-webhooks.commands';
/** The read scopes an install needs to see an object type's changes (the webhooks journal applies the same rule). */
export { readScopesOf } from './domain/subscription-types';
