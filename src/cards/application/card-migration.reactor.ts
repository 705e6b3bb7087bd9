import { Injectable } from '@nestjs/common';
import type { Recorded } from '../../platform/events/event-type-registry';
import type { Reactor } from '../../platform/projections/projection';
import { CardsEventType, type MigrationStarted } from '../domain/card-events';
import { CardMigrationWorker } from './card-migration.worker';

/**
 * Hands every MigrationStarted in the feed to the worker (also one appended by another
 * instance). It does not wait for the migration: the worker resumes unfinished migrations from
 * the read model on start, so the reactor's checkpoint may safely move past the event.
 */
@Injectable()
export class CardMigrationReactor implements Reactor<MigrationStarted> {
  readonly name = 'cards-migration-reactor';
  /** Only these: on start the runner then reads them by type instead of replaying the whole history. */
  readonly handles = [CardsEventType.MigrationStarted];

  constructor(private readonly worker: CardMigrationWorker) {}

  handle(event: Recorded<MigrationStarted>): Promise<void> {
    this.worker.ensureRunning(event.data.legacyCardId, event.position);
    return Promise.resolve();
  }
}
