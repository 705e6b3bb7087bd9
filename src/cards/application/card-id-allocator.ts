import { Injectable } from '@nestjs/common';
import { CardIdTaken } from '../domain/legacy-card.decider';
import { CardsQueries } from './cards.queries';

/** First id handed out on an empty store; HubSpot's card ids are plain digit strings of this size. */
const FIRST_CARD_ID = 1_000_001n;
const MAX_ATTEMPTS = 32;

/**
 * Hands out card ids for legacy cards and app cards (one id space). The read model says where
 * the sequence stands; the card stream, appended with `no_stream`, is the real guard, so two
 * instances (or a read model that lags) can never give one id to two cards: the loser moves on.
 */
@Injectable()
export class CardIdAllocator {
  private last = FIRST_CARD_ID - 1n;

  constructor(private readonly queries: CardsQueries) {}

  async withNewId<T>(create: (cardId: string) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const stored = this.queries.maxCardId();
      if (stored !== null && BigInt(stored) > this.last) this.last = BigInt(stored);
      this.last += 1n;
      try {
        return await create(this.last.toString());
      } catch (error) {
        if (!(error instanceof CardIdTaken) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}
