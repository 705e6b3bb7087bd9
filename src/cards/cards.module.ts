import { DeveloperAuthentication } from './http/developer-authentication';
import { DynamicModule, Module } from '@nestjs/common';
import { DirectoryModule } from '../directory';
import { AccessTokenVerificationModule } from '../oauth';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AppOwnership } from './application/app-ownership';
import { CardIdAllocator } from './application/card-id-allocator';
import {
  CARDS_MIGRATION_WORKER_OPTIONS,
  CardMigrationWorker,
  type MigrationWorkerOptions,
} from './application/card-migration.worker';
import { CardsAnswers } from './application/cards-answers';
import { CardsQueries } from './application/cards.queries';
import { CompleteCardMigrationHandler } from './application/commands/complete-card-migration';
import { CreateAppCardHandler } from './application/commands/create-app-card';
import { CreateLegacyCardHandler } from './application/commands/create-legacy-card';
import { DeleteLegacyCardHandler } from './application/commands/delete-legacy-card';
import { MigratePortalCardHandler } from './application/commands/migrate-portal-card';
import { StartCardMigrationHandler } from './application/commands/start-card-migration';
import { UpdateLegacyCardHandler } from './application/commands/update-legacy-card';
import { cardsEvents } from './domain/card-events';
import { CardsAdminController } from './http/cards-admin.controller';
import { LegacyCardsController } from './http/legacy-cards.controller';
import { CardsProjection } from './projections/cards.projection';

/**
 * Legacy CRM cards, app cards, the CRM views of every account that installed an app, and the
 * migration that swaps a legacy card for an app card in all of them.
 */
@Module(
  EventSourcingModule.forFeature({
    // The cards read model also applies the OAuth module's install events, which that module registers.
    events: cardsEvents,
    projections: [CardsProjection],
    reactors: [CardMigrationWorker],
    commandHandlers: [
      CreateLegacyCardHandler,
      UpdateLegacyCardHandler,
      DeleteLegacyCardHandler,
      CreateAppCardHandler,
      StartCardMigrationHandler,
      MigratePortalCardHandler,
      CompleteCardMigrationHandler,
    ],
    imports: [DirectoryModule, AccessTokenVerificationModule],
    controllers: [LegacyCardsController, CardsAdminController],
    providers: [CardsQueries, CardsAnswers, CardIdAllocator, AppOwnership, DeveloperAuthentication],
    exports: [CardsQueries, CardMigrationWorker],
  }),
)
export class CardsModule {
  /** The module with worker settings other than the defaults (benchmarks, crash tests). */
  static withWorkerOptions(options: Partial<MigrationWorkerOptions>): DynamicModule {
    return { module: CardsModule, providers: [{ provide: CARDS_MIGRATION_WORKER_OPTIONS, useValue: options }] };
  }
}
