import { Injectable } from '@nestjs/common';
import type { Decider } from '../../platform/commands/decider';
import { EventStreams } from '../../platform/commands/event-streams';
import { retryOnConflict, type RetryPolicy } from '../../platform/commands/retry-policy';
import type { CommandContext, DomainEvent } from '../../platform/events/envelope';
import { cardStream } from '../domain/card-events';
import { CardsQueries } from './cards.queries';

/** First id handed out on an empty store; HubSpot's card ids are plain digit strings of this size. */
const FIRST_CARD_ID = 1_000_001n;
/** Ids tried before giving up (409): each conflict means another writer took the id first. */
const NEW_ID_POLICY: RetryPolicy = { maxAttempts: 32 };

/**
 * Hands out card ids for legacy cards and app cards (one id space). The read model says where
 * the sequence stands; the card stream, appended with `no_stream`, is the real guard, so two
 * instances (or a read model that lags) can never give one id to two cards: the loser moves on.
 */
@Injectable()
export class CardIdAllocator {
  private last = FIRST_CARD_ID - 1n;

  constructor(
    private readonly streams: EventStreams,
    private readonly queries: CardsQueries,
  ) {}

  /**
   * Creates a card under a fresh id. A fresh id's stream is empty, so the decider decides on its
   * initial state (`handleNew`: the append expects `no_stream`, no read first): an id someone else
   * took meanwhile is a concurrency conflict, and the retry policy's next attempt takes the next id.
   */
  createCard<S, C, E extends DomainEvent>(
    decider: Decider<S, C, E>,
    commandFor: (cardId: string) => NoInfer<C>,
    context: CommandContext,
  ): Promise<{ cardId: string; position: number }> {
    const cards = this.streams.forDecider(decider);
    return retryOnConflict('cards.card-{new id}', NEW_ID_POLICY, async () => {
      const cardId = this.nextId();
      const { position } = await cards.handleNew(cardStream(cardId), commandFor(cardId), context);
      return { cardId, position };
    });
  }

  private nextId(): string {
    const stored = this.queries.maxCardId();
    if (stored !== null && BigInt(stored) > this.last) this.last = BigInt(stored);
    this.last += 1n;
    return this.last.toString();
  }
}
