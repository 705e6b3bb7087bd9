import type { EventStreams } from '../../platform/commands/event-streams';
import { CardsEventType, cardStream } from '../domain/card-events';
import type { LegacyCardStreamEvent } from '../domain/legacy-card.decider';
import { objectTypesOf } from '../domain/card-views';
import type { LegacyCardRecord } from './cards.queries';

/** The card's own stream folded into what the read model would answer (null: absent or deleted). */
const recordFolder = {
  initialState: (): LegacyCardRecord | null => null,
  evolve: (record: LegacyCardRecord | null, event: LegacyCardStreamEvent): LegacyCardRecord | null => {
    switch (event.type) {
      case CardsEventType.LegacyCardCreated: {
        const d = event.data;
        return {
          cardId: d.cardId,
          appId: d.appId,
          definition: d.definition,
          objectTypes: objectTypesOf(d.definition),
          createdAt: d.createdAt,
          updatedAt: d.createdAt,
          audit: [{ actionType: 'CREATE', appId: d.appId, userId: d.userId, changedAt: d.createdAt }],
        };
      }
      case CardsEventType.LegacyCardUpdated: {
        const d = event.data;
        if (!record) return record;
        return {
          ...record,
          definition: d.definition,
          objectTypes: objectTypesOf(d.definition),
          updatedAt: d.updatedAt,
          audit: [...record.audit, { actionType: 'UPDATE', appId: d.appId, userId: d.userId, changedAt: d.updatedAt }],
        };
      }
      case CardsEventType.LegacyCardDeleted:
        return null;
      default:
        return record;
    }
  },
};

/**
 * A legacy card read from its own stream: the answer of a command on the card whose events are
 * committed while the cards read model lags (see answerAfterCommit).
 */
export async function legacyCardFromStream(streams: EventStreams, cardId: string): Promise<LegacyCardRecord> {
  const { state } = await streams.load(cardStream(cardId), recordFolder);
  if (!state) throw new Error(`legacy card ${cardId} missing from its own stream after a committed write`);
  return state;
}
