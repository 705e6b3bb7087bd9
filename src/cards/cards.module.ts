import { DynamicModule, Injectable, Logger, Module, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module';
import { eventTypes } from '../platform/events/event-type-registry';
import { ProjectionRunner } from '../platform/projections/projection-runner';
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

eventTypes.registerAll(Object.values(CardsEventType));

/** Registers the read model and the reactor; resumes unfinished migrations once the app is up. */
@Injectable()
class CardsLifecycle implements OnModuleInit, OnApplicationBootstrap {
  constructor(
    private readonly runner: ProjectionRunner,
    private readonly worker: CardMigrationWorker,
  ) {}

  onModuleInit(): void {
    this.runner.register(new CardsProjection());
    this.runner.registerReactor(new CardMigrationReactor(this.worker));
  }

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
@Module({
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
})
export class CardsModule {
  /** The module with worker settings other than the defaults (benchmarks, crash tests). */
  static withWorkerOptions(options: Partial<MigrationWorkerOptions>): DynamicModule {
    return { module: CardsModule, providers: [{ provide: CARDS_MIGRATION_WORKER_OPTIONS, useValue: options }] };
  }
}
