import { CardsQueries } from '../../src/cards/application/cards.queries';
import { CardsModule } from '../../src/cards/cards.module';
import { Metrics } from '../../src/platform/metrics/metrics';
import { eventsOfType, recordInstalls, settle, waitForEvent } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * Scale, bounded: 5,000 installed accounts migrate end to end on the embedded store, with the
 * appends grouped into far fewer commits than events, and progress visible as it goes (metric,
 * migration counts). The 100,000-account figure is the benchmark's job (npm run bench).
 */
// Thousands of accounts on a shared 2-core machine: bounded, but beyond jest's 5 s default.
jest.setTimeout(120_000);

describe('cards: migration at scale', () => {
  const ACCOUNTS = 5000;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule] });
  });
  afterAll(() => t.close());

  it(`migrates ${ACCOUNTS} accounts with grouped commits, exactly once each`, async () => {
    const dev = await createAccount(t);
    const appId = (await createApp(t, { developerHubId: dev.hubId })).appId;
    const auth = { authorization: `Bearer ${mintCardsToken(t, { hubId: dev.hubId, appId })}` };
    const legacy = await t.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: auth,
      payload: {
        title: 'Legacy',
        fetch: {
          targetUrl: 'https://example.com/f',
          objectTypes: [{ name: 'tickets', propertiesToSend: ['subject'] }],
        },
        display: { properties: [] },
        actions: { baseUrls: [] },
      },
    });
    const legacyId = legacy.json().id as string;
    const appCardId = (
      await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, { title: 'Tickets', objectTypes: ['tickets'] })
    ).json().id;
    const deskId = (
      await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, { title: 'Desk', objectTypes: ['tickets'] })
    ).json().id;
    await recordInstalls(
      t,
      appId,
      Array.from({ length: ACCOUNTS }, (_, i) => 1_000_000 + i),
    );
    await settle(t);

    const metrics = t.app.get(Metrics);
    const commitsBefore = (await metrics.commits.get()).values[0]?.value ?? 0;
    const began = performance.now();
    const start = await t.inject({
      method: 'POST',
      url: `/crm/v3/extensions/cards-dev/${appId}/views/migrate`,
      headers: auth,
      payload: { legacyCrmCardId: legacyId, appCardId, helpdeskAppCardId: deskId, allowDuplicateAppCardIds: false },
    });
    expect(start.statusCode).toBe(200);
    expect(start.json()).toMatchObject({ totalPortalCount: ACCOUNTS });
    await waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted');
    const seconds = (performance.now() - began) / 1000;
    await settle(t);

    const migrated = await eventsOfType(t, 'cards.PortalCardMigrated');
    expect(new Set(migrated.map((e) => (e.data as { hubId: number }).hubId)).size).toBe(ACCOUNTS);
    expect(migrated.length).toBe(ACCOUNTS);
    expect(t.app.get(CardsQueries).migration(legacyId)).toMatchObject({
      totalPortalCount: ACCOUNTS,
      remainingPortalCount: 0,
    });
    expect((await metrics.migratedPortals.get()).values[0]?.value).toBe(ACCOUNTS);
    // Group commit at work: many accounts per transaction.
    const commits = ((await metrics.commits.get()).values[0]?.value ?? 0) - commitsBefore;
    expect(commits).toBeGreaterThan(0);
    expect(commits).toBeLessThan(ACCOUNTS / 10);
    // Generous on a shared 2-core machine; the benchmark measures the real figure.
    expect(seconds).toBeLessThan(20);
    const sample = t.app.get(CardsQueries).accountViews(1_000_000 + 1234);
    expect(sample.find((v) => v.view === 'tickets')!.cards).toMatchObject([
      { position: 0, cardType: 'APP_CARD', cardId: appCardId },
    ]);
    expect(sample.find((v) => v.view === 'helpdesk')!.cards).toMatchObject([
      { position: 0, cardType: 'APP_CARD', cardId: deskId },
    ]);
  });
});
