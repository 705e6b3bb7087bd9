/** The webhooks journal module's public surface. Everything else under src/webhooks-journal is internal (lint enforces it). */
export { WebhooksJournalModule } from './webhooks-journal.module';
