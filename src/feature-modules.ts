import type { DynamicModule, Type } from '@nestjs/common';
import { AppWebhooksModule } from './app-webhooks';
import { CardsModule } from './cards';
import { ConsoleModule } from './console';
import { ContactsV1Module } from './contacts-v1';
import { CrmAssociationsModule } from './crm-associations';
import { CrmPipelinesModule } from './crm-pipelines';
import { CrmRecordsModule } from './crm-records';
import { CrmSearchModule } from './crm-search';
import { TestControlsModule } from './test-controls';
import { CrmSchemaModule } from './crm-schema';
import { InstallPageModule, OAuthModule } from './oauth';
import { WebhooksJournalModule } from './webhooks-journal';

export type FeatureModule = DynamicModule | Type<unknown>;

/** The HubSpot API areas, plugged into the app by main.ts and the end-to-end tests alike. */
export function featureModules(): FeatureModule[] {
  return [
    OAuthModule,
    InstallPageModule,
    CardsModule,
    CrmSchemaModule,
    CrmRecordsModule,
    ContactsV1Module,
    CrmSearchModule,
    CrmPipelinesModule,
    CrmAssociationsModule,
    AppWebhooksModule,
    WebhooksJournalModule,
    TestControlsModule,
    ConsoleModule,
  ];
}
