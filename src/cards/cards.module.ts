import { DynamicModule, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { DirectoryModule } from '../directory/index';
import { EventSourcingModule } from '../platform/event-sourcing/event-sourcing.module';
import { AppCardCommands } from './application/app-card.commands';
import { AppOwnership } from './application/app-ownership';
import { CardIdAllocator } from './application/card-id-allocator';
import { CardMigrationCommands } from './application/card-migration.commands';
import { CardMigrationReactor } from './application/card-migration.reactor';
import {
  CARDS_MIGRATION_WORKER_OPTIONS,
  CardMigrationWorker,
  type MigrationWorkerOptions,
} from './application/card-migration.worker';
import { CardsQueries } from './application/cards.queries';
import { LegacyCardCommands } from './application/legacy-card.commands';
import { CardsEventType } from './domain/card-events';
import { CardsAdminController } from './http/cards-admin.controller';
import { LegacyCardsController } from './http/legacy-cards.controller';
import { CardsProjection } from './projections/cards.projection';

/** Resumes unfinished migrations once the app is up. */
@Injectable()
class CardsLifecycle implements OnApplicationBootstrap {
  constructor(private readonly worker: CardMigrationWorker) {}

  onApplicationBootstrap(): void {
    // Not awaited: start-up must not wait for the read models to catch up with a long history.
    this.worker
      .resumeUnfinished()
      .catch((e: unknown) =>
        new Logger('CardsMigration').warn(`resume skipped: ${e instanceof Error ? e.message : String(e)}`),
      );
  }
}

/**
 * Legacy CRM cards, app cards, the CRM views of every account that installed an app, and the
 * migration that swaps a legacy card for an app card in all of them.
 */
@Module(
  EventSourcingModule.forFeature({
    // The cards read model also applies the OAuth module's install events (InstallEventType).
    events: Object.fromEntries(Object.values(CardsEventType).map((t) => [t, null])),
    projections: [CardsProjection],
    reactors: [CardMigrationReactor],
    imports: [DirectoryModule],
    controllers: [LegacyCardsController, CardsAdminController],
    providers: [
      CardsQueries,
      CardIdAllocator,
      AppOwnership,
      LegacyCardCommands,
      AppCardCommands,
      CardMigrationCommands,
      CardMigrationWorker,
      CardsLifecycle,
    ],
    exports: [CardsQueries, CardMigrationWorker],
  }),
)
export class CardsModule {
  /** The module with worker settings other than the defaults (benchmarks, crash tests). */
  static withWorkerOptions(options: Partial<MigrationWorkerOptions>): DynamicModule {
    return { module: CardsModule, providers: [{ provide: CARDS_MIGRATION_WORKER_OPTIONS, useValue: options }] };
  }
}
