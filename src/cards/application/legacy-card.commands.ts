import { Injectable } from '@nestjs/common';
import { CommandExecutor } from '../../platform/commands/command-executor';
import { fold } from '../../platform/commands/decider';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import type { CommandContext } from '../../platform/events/envelope';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { Clock, CLOCK } from '../../platform/clock';
import { Inject } from '@nestjs/common';
import {
  cardStream,
  migrationStream,
  type CardMigrationEvent,
  type LegacyCardDefinition,
  type LegacyCardPatch,
} from '../domain/card-events';
import { cardMigrationDecider } from '../domain/card-migration.decider';
import { legacyCardDecider } from '../domain/legacy-card.decider';
import { CardIdAllocator } from './card-id-allocator';
import { CardsQueries, type LegacyCardRecord } from './cards.queries';

/** Create, patch and delete legacy CRM cards; each answers from the read model once it holds the change. */
@Injectable()
export class LegacyCardCommands {
  constructor(
    private readonly executor: CommandExecutor,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    private readonly ids: CardIdAllocator,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async createLegacyCard(
    appId: number,
    definition: LegacyCardDefinition,
    userId: number,
    ctx: CommandContext,
  ): Promise<LegacyCardRecord> {
    const { cardId, position } = await this.ids.withNewId(async (cardId) => {
      const result = await this.executor.execute(
        cardStream(cardId),
        legacyCardDecider,
        (state) =>
          legacyCardDecider.decide(
            { kind: 'CreateLegacyCard', cardId, appId, definition, userId, now: this.clock.now() },
            state,
          ),
        ctx,
      );
      return { cardId, position: result.position };
    });
    await this.runner.waitFor(position);
    return this.queries.legacyCard(cardId)!;
  }

  async updateLegacyCard(
    appId: number,
    cardId: string,
    patch: LegacyCardPatch,
    userId: number,
    ctx: CommandContext,
  ): Promise<LegacyCardRecord> {
    const result = await this.executor.execute(
      cardStream(cardId),
      legacyCardDecider,
      (state) =>
        legacyCardDecider.decide(
          { kind: 'UpdateLegacyCard', cardId, appId, patch, userId, now: this.clock.now() },
          state,
        ),
      ctx,
    );
    await this.runner.waitFor(result.position);
    return this.queries.legacyCard(cardId)!;
  }

  async deleteLegacyCard(appId: number, cardId: string, userId: number, ctx: CommandContext): Promise<void> {
    // Completed is final, so reading the migration's status before deciding cannot let a delete
    // through wrongly; a start racing this delete is serialized on the card's own stream.
    const migrationStatus = fold(
      cardMigrationDecider.evolve,
      cardMigrationDecider.initialState(),
      (await this.store.readStream(migrationStream(cardId))) as unknown as CardMigrationEvent[],
    ).status;
    const progress = this.queries.migration(cardId);
    const result = await this.executor.execute(
      cardStream(cardId),
      legacyCardDecider,
      (state) =>
        legacyCardDecider.decide(
          {
            kind: 'DeleteLegacyCard',
            cardId,
            appId,
            userId,
            now: this.clock.now(),
            migrationStatus,
            ...(progress
              ? { progress: { remaining: progress.remainingPortalCount, total: progress.totalPortalCount } }
              : {}),
          },
          state,
        ),
      ctx,
    );
    await this.runner.waitFor(result.position);
  }
}
