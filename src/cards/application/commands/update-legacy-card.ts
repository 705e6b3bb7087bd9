import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { answerAfterCommit } from '../../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { cardStream, type LegacyCardPatch } from '../../domain/card-events';
import { legacyCardDecider } from '../../domain/legacy-card.decider';
import { CardsQueries, type LegacyCardRecord } from '../cards.queries';
import { legacyCardFromStream } from '../legacy-card-record';

/** A developer patches a legacy CRM card; the answer is the whole card after the patch. */
export class UpdateLegacyCard extends Command<LegacyCardRecord> {
  constructor(
    readonly appId: number,
    readonly cardId: string,
    readonly patch: LegacyCardPatch,
    readonly userId: number,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(UpdateLegacyCard)
export class UpdateLegacyCardHandler implements ICommandHandler<UpdateLegacyCard> {
  /** The legacy card's own stream, bound once: load, decide, append, retry on conflict. */
  private readonly cards;

  constructor(
    private readonly streams: EventStreams,
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.cards = streams.forDecider(legacyCardDecider);
  }

  async execute({ appId, cardId, patch, userId, context }: UpdateLegacyCard): Promise<LegacyCardRecord> {
    const { position } = await this.cards.handle(
      cardStream(cardId),
      { kind: 'UpdateLegacyCard', cardId, appId, patch, userId, now: this.clock.now() },
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
