import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import type { CommandContext } from '../../../platform/events/envelope';
import { appCardDecider, type CreateAppCard as Decided } from '../../domain/app-card.decider';
import { cardStream } from '../../domain/card-events';
import type { CardObjectType } from '../../domain/card-views';
import { CardIdAllocator } from '../card-id-allocator';
import { CardsAnswers } from '../cards-answers';
import type { AppCardRecord } from '../cards.queries';

/** An admin registers one of an app's new-style cards: the target of a views migration. */
export class CreateAppCard extends Command<AppCardRecord> implements Omit<Decided, 'appCardId' | 'now'> {
  readonly type = 'CreateAppCard' as const;
  constructor(
    readonly appId: number,
    readonly title: string,
    readonly objectTypes: CardObjectType[],
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(CreateAppCard)
export class CreateAppCardHandler implements ICommandHandler<CreateAppCard> {
  constructor(
    private readonly ids: CardIdAllocator,
    private readonly answers: CardsAnswers,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ appId, title, objectTypes, context }: CreateAppCard): Promise<AppCardRecord> {
    const createdAt = this.clock.now();
    const { cardId, position } = await this.ids.createCard(
      appCardDecider,
      (appCardId) => ({ type: 'CreateAppCard' as const, appCardId, appId, title, objectTypes, now: createdAt }),
      context,
    );
    return this.answers.answer(position, [cardStream(cardId)], (cards) => cards.appCard(cardId));
  }
}
