/** The app webhooks module's public surface. Everything else under src/app-webhooks is internal (lint enforces it). */
export { AppWebhooksModule } from './app-webhooks.module';
