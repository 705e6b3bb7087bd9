import { join } from 'node:path';
import { CardMigrationWorker } from '../../src/cards/application/card-migration.worker';
import { CardsQueries } from '../../src/cards/application/cards.queries';
import { CardsModule } from '../../src/cards/cards.module';
import type { RecordedEvent } from '../../src/platform/events/envelope';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite-event-store';
import { eventsOfType, recordInstalls, settle, waitForEvent } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * A migration stopped half-way resumes from the event history on the next start, on the same
 * DATA_DIR: every account migrated exactly once, counts exact.
 */
// Thousands of accounts on a shared 2-core machine: bounded, but beyond jest's 5 s default.
jest.setTimeout(120_000);

describe('cards: migration survives a stop half-way', () => {
  const ACCOUNTS = 2000;
  const hubIds = Array.from({ length: ACCOUNTS }, (_, i) => 500_000 + i);

  interface Setup {
    appId: number;
    devHubId: number;
    legacyId: string;
    appCardId: string;
  }

  async function prepare(t: TestApp): Promise<Setup> {
    const dev = await createAccount(t);
    const appId = (await createApp(t, { developerHubId: dev.hubId })).appId;
    const legacy = await t.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: { authorization: `Bearer ${mintCardsToken(t, { hubId: dev.hubId, appId })}` },
      payload: {
        title: 'Legacy',
        fetch: {
          targetUrl: 'https://example.com/f',
          objectTypes: [
            { name: 'contacts', propertiesToSend: [] },
            { name: 'deals', propertiesToSend: [] },
          ],
        },
        display: { properties: [] },
        actions: { baseUrls: [] },
      },
    });
    expect(legacy.statusCode).toBe(201);
    const appCard = await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
      title: 'App card',
      objectTypes: ['contacts', 'deals'],
    });
    await recordInstalls(t, appId, hubIds);
    await settle(t);
    return { appId, devHubId: dev.hubId, legacyId: legacy.json().id, appCardId: appCard.json().id };
  }

  const migrate = (t: TestApp, s: Setup) =>
    t.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${s.appId}/views/migrate`,
      headers: { authorization: `Bearer ${mintCardsToken(t, { hubId: s.devHubId, appId: s.appId })}` },
      payload: { legacyCrmCardId: s.legacyId, appCardId: s.appCardId, allowDuplicateAppCardIds: false },
    });

  async function assertMigratedExactlyOnce(t: TestApp, s: Setup): Promise<void> {
    const migrated = (await eventsOfType(t, 'cards.PortalCardMigrated')) as Array<RecordedEvent<{ hubId: number }>>;
    const perHub = new Map<number, number>();
    for (const e of migrated) perHub.set(e.data.hubId, (perHub.get(e.data.hubId) ?? 0) + 1);
    expect(migrated.length).toBe(ACCOUNTS);
    expect(perHub.size).toBe(ACCOUNTS);
    expect((await eventsOfType(t, 'cards.MigrationCompleted')).length).toBe(1);
    await settle(t);
    const queries = t.app.get(CardsQueries);
    expect(queries.migration(s.legacyId)).toMatchObject({
      totalPortalCount: ACCOUNTS,
      migratedPortalCount: ACCOUNTS,
      remainingPortalCount: 0,
      endedAt: expect.any(Number),
    });
    for (const hubId of hubIds) {
      const views = queries.accountViews(hubId).filter((v) => v.cards.length > 0);
      expect(views.map((v) => [v.view, v.cards.map((c) => `${c.cardType}:${c.cardId}`)])).toEqual([
        ['contacts', [`APP_CARD:${s.appCardId}`]],
        ['deals', [`APP_CARD:${s.appCardId}`]],
      ]);
    }
    const done = (await migrate(t, s)).json();
    expect(done).toMatchObject({ totalPortalCount: ACCOUNTS, remainingPortalCount: 0, endedAt: expect.any(Number) });
    expect(done.message).toContain('completed');
  }

  it('deterministic stop: the first process migrates exactly 700 accounts, the next start the rest', async () => {
    const first = await startTestApp({
      modules: [CardsModule.withWorkerOptions({ maxPortalsPerProcess: 700, concurrency: 64 })],
    });
    const s = await prepare(first);
    const started = await migrate(first, s);
    expect(started.statusCode).toBe(200);
    expect(started.json()).toMatchObject({ totalPortalCount: ACCOUNTS, startedAt: first.clock.now() });
    let seen = 0;
    await waitForEvent(
      first,
      () => seen === 700,
      (e) => (seen += e.type === 'cards.PortalCardMigrated' ? 1 : 0),
    );
    await first.app.get(CardMigrationWorker).idle();
    await settle(first);
    const half = (await migrate(first, s)).json();
    expect(half).toMatchObject({ totalPortalCount: ACCOUNTS, remainingPortalCount: ACCOUNTS - 700 });
    expect(half.endedAt).toBeUndefined();
    expect((await eventsOfType(first, 'cards.PortalCardMigrated')).length).toBe(700);
    await first.close({ keepData: true });

    const second = await startTestApp({ dataDir: first.dataDir, clock: first.clock, modules: [CardsModule] });
    try {
      await waitForEvent(second, (e) => e.type === 'cards.MigrationCompleted');
      await assertMigratedExactlyOnce(second, s);
    } finally {
      await second.close();
    }
  });

  it('stop at full speed: the app closes while hundreds of appends are in flight', async () => {
    const first = await startTestApp({ modules: [CardsModule] });
    const s = await prepare(first);
    expect((await migrate(first, s)).statusCode).toBe(200);
    let seen = 0;
    await waitForEvent(
      first,
      () => seen >= 300,
      (e) => (seen += e.type === 'cards.PortalCardMigrated' ? 1 : 0),
    );
    await first.close({ keepData: true }); // at once: whatever was in flight is flushed, the rest stays pending
    const store = new SqliteEventStore(join(first.dataDir, 'events.sqlite'));
    const leftBehind = (await store.readAll({ after: 0, limit: 1_000_000, type: 'cards.PortalCardMigrated' })).length;
    await store.close();
    expect(leftBehind).toBeGreaterThanOrEqual(300);
    expect(leftBehind).toBeLessThan(ACCOUNTS); // really stopped half-way

    const second = await startTestApp({ dataDir: first.dataDir, clock: first.clock, modules: [CardsModule] });
    try {
      await waitForEvent(second, (e) => e.type === 'cards.MigrationCompleted');
      await assertMigratedExactlyOnce(second, s);
    } finally {
      await second.close();
    }
  });
});
