import {
  CardsEventType,
  cardsEvents,
  decodeMigrationStarted,
  type CardMigrationEvent,
  type MigrationStarted,
} from '../../src/cards/domain/card-events';
import { cardMigrationDecider } from '../../src/cards/domain/card-migration.decider';
import { fold } from '../../src/platform/commands/decider';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { EventTypeRegistry } from '../../src/platform/events/event-type-registry';

const current: MigrationStarted['data'] = {
  appId: 7,
  legacyCardId: '1000001',
  appCardId: '1000002',
  helpdeskAppCardId: '1000003',
  allowDuplicateAppCardIds: false,
  startedAt: 1000,
};
/** As the first cards release stored it (47d1773): with the command's count of accounts. */
const firstShape = { ...current, portals: 2 };

const recorded = (type: string, data: unknown, revision = 0): RecordedEvent => ({
  type,
  data,
  metadata: { eventId: `e-${revision}`, correlationId: 'c', causationId: null, actor: 'test', occurredAt: 1 },
  streamId: 'cards.migration-1000001',
  revision,
  position: revision + 1,
});

describe('cards events: the registry definitions', () => {
  it('define every cards event type, and only those', () => {
    expect(Object.keys(cardsEvents).sort()).toEqual(Object.values(CardsEventType).sort());
  });

  it('upcast a MigrationStarted of the first shape: `portals` is dropped, the rest is the current shape', () => {
    const decoded = decodeMigrationStarted(firstShape);
    expect(decoded).toEqual(current);
    expect(decoded).not.toHaveProperty('portals');
    expect(firstShape.portals).toBe(2); // the stored data is not changed in place
  });

  it('pass a MigrationStarted of the current shape through as it is (no copy on the read path)', () => {
    expect(decodeMigrationStarted(current)).toBe(current);
  });

  it('decode a stored first-shape MigrationStarted through the registry, so readers see only the current shape', () => {
    const registry = new EventTypeRegistry();
    registry.register(cardsEvents);
    const event = registry.decode<MigrationStarted>(recorded(CardsEventType.MigrationStarted, firstShape));
    expect(event.data).toEqual(current);
    expect(event.metadata.eventId).toBe('e-0');

    // The migration decider folds the decoded stream; it has no inline handling of older shapes.
    const history = registry.decodeStream<CardMigrationEvent>([
      recorded(CardsEventType.MigrationStarted, firstShape, 0),
      recorded(CardsEventType.MigrationCompleted, { appId: 7, legacyCardId: '1000001', endedAt: 2000 }, 1),
    ]);
    expect(history[0]!.data).not.toHaveProperty('portals');
    expect(fold(cardMigrationDecider.evolve, cardMigrationDecider.initialState(), history)).toEqual({
      status: 'completed',
      appId: 7,
      appCardId: '1000002',
      helpdeskAppCardId: '1000003',
      startedAt: 1000,
      endedAt: 2000,
    });
  });
});
