import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import type { CommandContext } from '../../../platform/events/envelope';
import { answerAfterCommit } from '../../../platform/projections/answer-after-commit';
import { ProjectionRunner } from '../../../platform/projections/projection-runner';
import { appCardDecider } from '../../domain/app-card.decider';
import type { CardObjectType } from '../../domain/card-views';
import { CardIdAllocator } from '../card-id-allocator';
import { CardsQueries, type AppCardRecord } from '../cards.queries';

/** An admin registers one of an app's new-style cards: the target of a views migration. */
export class CreateAppCard extends Command<AppCardRecord> {
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
    private readonly runner: ProjectionRunner,
    private readonly queries: CardsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ appId, title, objectTypes, context }: CreateAppCard): Promise<AppCardRecord> {
    const createdAt = this.clock.now();
    const { cardId, position } = await this.ids.createCard(
      appCardDecider,
      (appCardId) => ({ kind: 'CreateAppCard' as const, appCardId, appId, title, objectTypes, now: createdAt }),
      context,
    );
    return answerAfterCommit(
      this.runner,
      position,
      () => this.queries.appCard(cardId),
      // As decided (decideAppCard): each object type once.
      () => ({ id: cardId, appId, title, objectTypes: [...new Set(objectTypes)], createdAt }),
    );
  }
}
