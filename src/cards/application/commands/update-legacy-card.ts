import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { EventStreams } from '../../../platform/commands/event-streams';
import type { CommandContext } from '../../../platform/events/envelope';
import { cardStream, type LegacyCardPatch } from '../../domain/card-events';
import { legacyCardDecider, type UpdateLegacyCard as Decided } from '../../domain/legacy-card.decider';
import type { LegacyCardRecord } from '../cards.queries';
import { CardsAnswers } from '../cards-answers';

/** A developer patches a legacy CRM card; the answer is the whole card after the patch. */
export class UpdateLegacyCard extends Command<LegacyCardRecord> implements Omit<Decided, 'now'> {
  readonly type = 'UpdateLegacyCard' as const;
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
    streams: EventStreams,
    private readonly answers: CardsAnswers,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.cards = streams.forDecider(legacyCardDecider);
  }

  async execute(command: UpdateLegacyCard): Promise<LegacyCardRecord> {
    const { cardId, context } = command;
    const { position } = await this.cards.handle(cardStream(cardId), { ...command, now: this.clock.now() }, context);
    return this.answers.answer(position, [cardStream(cardId)], (cards) => cards.legacyCard(cardId));
  }
}
