import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../../platform/clock';
import { HubSpotError } from '../../../platform/errors/hubspot-error';
import type { CommandContext } from '../../../platform/events/envelope';
import { cardStream, type LegacyCardDefinition } from '../../domain/card-events';
import { type CreateLegacyCard as Decided, legacyCardDecider } from '../../domain/legacy-card.decider';
import { CardIdAllocator } from '../card-id-allocator';
import { CardsQueries, type LegacyCardRecord } from '../cards.queries';
import { CardsAnswers } from '../cards-answers';

/**
 * HubSpot's documented limit: "Each app can include up to 25 CRM cards". It also bounds how many
 * cards every install of the app places in its accounts' views.
 */
export const MAX_LEGACY_CARDS_PER_APP = 25;

/** A developer defines a new legacy CRM card for an app; the answer is the card as the read model holds it. */
export class CreateLegacyCard extends Command<LegacyCardRecord> implements Omit<Decided, 'cardId' | 'now'> {
  readonly type = 'CreateLegacyCard' as const;
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
    private readonly answers: CardsAnswers,
    private readonly queries: CardsQueries,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The create in progress per app: creates of one app run one after the other, so the cap's count is exact. */
  private readonly creating = new Map<number, Promise<unknown>>();

  execute(command: CreateLegacyCard): Promise<LegacyCardRecord> {
    const previous = this.creating.get(command.appId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.create(command));
    this.creating.set(command.appId, next);
    void next
      .finally(() => {
        if (this.creating.get(command.appId) === next) this.creating.delete(command.appId);
      })
      .catch(() => undefined);
    return next;
  }

  private async create({ appId, definition, userId, context }: CreateLegacyCard): Promise<LegacyCardRecord> {
    // The previous create of this app has answered, so the read model holds it: the count is current.
    if (this.queries.legacyCardCountOfApp(appId) >= MAX_LEGACY_CARDS_PER_APP) {
      throw HubSpotError.validation(
        `An app can have at most ${MAX_LEGACY_CARDS_PER_APP} CRM cards; delete one before creating another.`,
        [{ message: `at most ${MAX_LEGACY_CARDS_PER_APP} cards per app`, in: 'appId', code: 'TOO_MANY_CARDS' }],
      );
    }
    const { cardId, position } = await this.ids.createCard(
      legacyCardDecider,
      (cardId) => ({ type: 'CreateLegacyCard' as const, cardId, appId, definition, userId, now: this.clock.now() }),
      context,
    );
    return this.answers.answer(position, [cardStream(cardId)], (cards) => cards.legacyCard(cardId));
  }
}
