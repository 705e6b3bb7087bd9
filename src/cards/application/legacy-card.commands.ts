import { Injectable } from '@nestjs/common';
import { CommandExecutor } from '../../shared/commands/command-executor';
import { HubSpotError } from '../../shared/errors/hubspot-error';
import type { CommandContext } from '../../shared/events/envelope';
import { ProjectionRunner } from '../../shared/projections/projection-runner';
import { Clock, CLOCK } from '../../shared/clock';
import { Inject } from '@nestjs/common';
import { cardStream, type LegacyCardDefinition, type LegacyCardPatch } from '../domain/card-events';
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
    const migration = this.queries.migration(cardId);
    if (migration && migration.endedAt === null && migration.appId === appId) {
      throw HubSpotError.conflict(
        `Legacy CRM card ${cardId} is being migrated to app card ${migration.appCardId} (${migration.remainingPortalCount} of ${migration.totalPortalCount} portals remaining). Delete it once the migration has ended.`,
      );
    }
    const result = await this.executor.execute(
      cardStream(cardId),
      legacyCardDecider,
      (state) =>
        legacyCardDecider.decide({ kind: 'DeleteLegacyCard', cardId, appId, userId, now: this.clock.now() }, state),
      ctx,
    );
    await this.runner.waitFor(result.position);
  }
}
