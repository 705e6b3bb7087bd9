import { CardsModule } from '../../src/cards/cards.module';
import { CardsProjection } from '../../src/cards/projections/cards.projection';
import { MAX_LEGACY_CARDS_PER_APP } from '../../src/cards/application/commands/create-legacy-card';
import { mintCardsToken } from '../support/cards-tokens';
import { recordInstalls, settle } from '../support/cards-fixtures';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 26, item 16: HubSpot's documented cap of 25 CRM cards per app, exact under concurrent
 * creates; and what one create costs the projection with the app installed in 3,000 accounts.
 */
const BASE = '/crm/v3/extensions/cards-dev';
const card = (i: number) => ({
  title: `Card ${i}`,
  fetch: {
    targetUrl: 'https://www.example.com/hubspot/target',
    objectTypes: [{ name: 'contacts', propertiesToSend: [] }],
  },
  display: { properties: [] },
  actions: { baseUrls: ['https://www.example.com/hubspot'] },
});

describe('legacy cards per app (issue 26, item 16)', () => {
  let t: TestApp;
  let devHubId: number;

  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule] });
    devHubId = (await createAccount(t)).hubId;
  });
  afterAll(() => t.close());

  const create = (appId: number, token: string, i: number) =>
    t.inject({
      method: 'POST',
      url: `${BASE}/${appId}`,
      headers: { authorization: `Bearer ${token}` },
      payload: card(i),
    });

  it(`at most ${MAX_LEGACY_CARDS_PER_APP} per app, exact under 30 concurrent creates; a delete makes room`, async () => {
    expect(MAX_LEGACY_CARDS_PER_APP).toBe(25);
    const appId = (await createApp(t, { developerHubId: devHubId })).appId;
    const token = mintCardsToken(t, { hubId: devHubId, appId, userId: 7 });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => create(appId, token, i)));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(25);
    const refused = answers.filter((r) => r.statusCode !== 201);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({
        category: 'VALIDATION_ERROR',
        message: 'An app can have at most 25 CRM cards; delete one before creating another.',
        errors: [{ in: 'appId', code: 'TOO_MANY_CARDS' }],
      });
    }
    const list = await t.inject({
      method: 'GET',
      url: `${BASE}/${appId}`,
      headers: { authorization: `Bearer ${token}` },
    });
    const results = (list.json() as { results: Array<{ id: string }> }).results;
    expect(results).toHaveLength(25);
    // Another app of the same developer has its own 25.
    const otherApp = (await createApp(t, { developerHubId: devHubId })).appId;
    expect(
      (await create(otherApp, mintCardsToken(t, { hubId: devHubId, appId: otherApp, userId: 7 }), 0)).statusCode,
    ).toBe(201);
    const gone = await t.inject({
      method: 'DELETE',
      url: `${BASE}/${appId}/${results[0]!.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(gone.statusCode).toBe(204);
    expect((await create(appId, token, 99)).statusCode).toBe(201);
    expect((await create(appId, token, 100)).statusCode).toBe(400);
  });

  it('one create with the app in 3,000 accounts: the projection’s cost is measured and printed', async () => {
    const appId = (await createApp(t, { developerHubId: devHubId })).appId;
    const token = mintCardsToken(t, { hubId: devHubId, appId, userId: 7 });
    await recordInstalls(
      t,
      appId,
      Array.from({ length: 3000 }, (_, i) => 500_000 + i),
    );
    await settle(t);
    const projection = t.app.get(CardsProjection);
    const apply = projection.apply.bind(projection);
    const costs: number[] = [];
    const spy = jest.spyOn(projection, 'apply').mockImplementation((event, db) => {
      const started = performance.now();
      apply(event, db);
      if (event.type === 'cards.LegacyCardCreated') costs.push(performance.now() - started);
    });
    try {
      for (let i = 0; i < 5; i++) expect((await create(appId, token, i)).statusCode).toBe(201);
      await settle(t);
    } finally {
      spy.mockRestore();
    }
    expect(costs).toHaveLength(5);
    const sorted = [...costs].sort((a, b) => a - b);
    console.log(
      `LegacyCardCreated with 3,000 installs: median ${sorted[2]!.toFixed(1)} ms (${sorted.map((c) => c.toFixed(1)).join(', ')})`,
    );
  }, 60_000);
});
