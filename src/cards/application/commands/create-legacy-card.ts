import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { answerAfterCommit } from '../../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import type { LegacyCardDefinition } from '../../domain/card-events';
import { legacyCardDecider } from '../../domain/legacy-card.decider';
import { CardIdAllocator } from '../card-id-allocator';
import { CardsQueries, type LegacyCardRecord } from '../cards.queries';
import { legacyCardFromStream } from '../legacy-card-record';

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
    private readonly streams: EventStreams,
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
    return answerAfterCommit(
      this.runner,
      position,
      () => this.queries.legacyCard(cardId),
      () => legacyCardFromStream(this.streams, cardId),
    );
  }
}
