import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import type { CommandContext } from '../../../platform/events/envelope';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import type { LegacyCardDefinition } from '../../domain/card-events';
import { legacyCardDecider } from '../../domain/legacy-card.decider';
import { CardIdAllocator } from '../card-id-allocator';
import { CardsQueries, type LegacyCardRecord } from '../cards.queries';

/** A developer defines a new legacy CRM card for an app; the answer is the card as the read model holds it. */
export class CreateLegacyCard extends Command<LegacyCardRecord> {
  constructor(
    readonly appId: number,
    readonly definition: LegacyCardDefinition,
    readonly userId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CreateLegacyCard)
export class CreateLegacyCardHandler implements ICommandHandler<CreateLegacyCard> {
  constructor(
    private readonly ids: CardIdAllocator,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ appId, definition, userId, context }: CreateLegacyCard): Promise<LegacyCardRecord> {
    const { cardId, position } = await this.ids.createCard(
      legacyCardDecider,
      (cardId) => ({ kind: 'CreateLegacyCard' as const, cardId, appId, definition, userId, now: this.clock.now() }),
      context,
    );
    await this.runner.waitFor(position);
    return this.queries.legacyCard(cardId)!;
  }
}
