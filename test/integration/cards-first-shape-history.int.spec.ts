import { randomUUID } from 'node:crypto';
import { CardsModule } from '../../src/cards/cards.module';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { eventsOfType, recordInstalls, settle, waitForEvent } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * A history written by the first cards release: its `cards.MigrationStarted` holds `portals` (the
 * command's count of accounts). The event-type registry upcasts it on read, so the read model,
 * the migration worker and the migration decider only ever see the current shape.
 */
describe('cards: a migration started by the first release', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule] });
  });
  afterAll(() => t.close());

  it('is counted, carried out and reported like any other', async () => {
    const dev = await createAccount(t);
    const appId = (await createApp(t, { developerHubId: dev.hubId })).appId;
    const auth = { authorization: `Bearer ${mintCardsToken(t, { hubId: dev.hubId, appId })}` };
    const legacy = await t.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: auth,
      payload: {
        title: 'Legacy',
        fetch: { targetUrl: 'https://example.com/f', objectTypes: [{ name: 'contacts', propertiesToSend: [] }] },
        display: { properties: [] },
        actions: { baseUrls: [] },
      },
    });
    const legacyCardId = legacy.json().id as string;
    const appCardId = (
      await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, { title: 'App card', objectTypes: ['contacts'] })
    ).json().id as string;
    const hubIds = [700_001, 700_002, 700_003];
    await recordInstalls(t, appId, hubIds);
    await settle(t);

    const started = {
      eventId: randomUUID(),
      correlationId: randomUUID(),
      causationId: null,
      actor: 'user:1',
      occurredAt: t.clock.now(),
    };
    await t.app.get<EventStore>(EVENT_STORE).append(
      `cards.migration-${legacyCardId}`,
      [
        {
          type: 'cards.MigrationStarted',
          data: {
            appId,
            legacyCardId,
            appCardId,
            allowDuplicateAppCardIds: false,
            startedAt: t.clock.now(),
            portals: 99, // stale on purpose: the read model counts the accounts itself
          },
          metadata: started,
        },
      ],
      'no_stream',
    );
    await waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted');

    const migrated = await eventsOfType(t, 'cards.PortalCardMigrated');
    expect(migrated.map((e) => (e.data as { hubId: number }).hubId).sort()).toEqual(hubIds);
    // The worker's events name the old start as their cause, as for any start.
    for (const e of migrated) {
      expect(e.metadata).toMatchObject({ correlationId: started.correlationId, causationId: started.eventId });
    }
    const again = await t.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${appId}/views/migrate`,
      headers: auth,
      payload: { legacyCrmCardId: legacyCardId, appCardId, allowDuplicateAppCardIds: false },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ totalPortalCount: 3, remainingPortalCount: 0, endedAt: expect.any(Number) });
  });
});
