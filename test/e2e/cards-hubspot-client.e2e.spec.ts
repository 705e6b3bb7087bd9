import { Client } from '@hubspot/api-client';
import { CardsModule } from '../../src/cards/cards.module';
import { recordInstall, settle, waitForEvent } from '../support/cards-fixtures';
import { checkCardsResponse } from '../support/cards-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * The official @hubspot/api-client v14 against the service listening on 127.0.0.1, changing
 * only basePath — and the acceptance walk-through of docs/cards.md: legacy card → installs →
 * views → app card → migrate → poll until endedAt → app card in the old place, one event per account.
 */
describe('cards: the official @hubspot/api-client against the running service', () => {
  let t: TestApp;
  let client: Client;
  let bare: Client;
  let appId: number;
  let customers: number[];

  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule], listen: true });
    const dev = await createAccount(t, { domain: 'developer.example.com' });
    appId = (await createApp(t, { developerHubId: dev.hubId, name: 'PetSpot' })).appId;
    customers = [
      (await createAccount(t, { domain: 'demo-one.example.com' })).hubId,
      (await createAccount(t, { domain: 'demo-two.example.com' })).hubId,
    ];
    const accessToken = mintCardsToken(t, { hubId: dev.hubId, appId, userId: 5 });
    // v14's generated CardsApi only knows the retired developer_hapikey scheme and attaches no
    // OAuth credentials of its own; the client's documented defaultHeaders option supplies the
    // bearer token the current spec (oauth2 developers-read/-write) requires.
    client = new Client({
      accessToken,
      basePath: t.url,
      numberOfApiCallRetries: 0,
      defaultHeaders: { Authorization: `Bearer ${accessToken}` },
    });
    bare = new Client({ accessToken, basePath: t.url, numberOfApiCallRetries: 0 });
  });
  afterAll(() => t.close());

  const card = (title: string, objectTypes: Array<'contacts' | 'tickets' | 'deals' | 'companies'>) => ({
    title,
    fetch: {
      targetUrl: 'https://www.example.com/hubspot/target',
      objectTypes: objectTypes.map((name) => ({ name, propertiesToSend: ['email'] })),
    },
    display: { properties: [{ name: 'pet_name', label: 'Pets Name', dataType: 'STRING', options: [] }] },
    actions: { baseUrls: ['https://www.example.com/hubspot'] },
  });

  it('v14 CardsApi with accessToken alone sends no credentials: 401 INVALID_AUTHENTICATION, not a 5xx', async () => {
    await expect(bare.crm.extensions.cards.cardsApi.getAll(appId)).rejects.toMatchObject({
      code: 401,
      body: expect.objectContaining({ category: 'INVALID_AUTHENTICATION' }),
    });
  });

  it('cardsApi: create, getAll, getById, update, archive; errors as ApiException', async () => {
    const api = client.crm.extensions.cards.cardsApi;
    const created = await api.create(appId, card('CRUD card', ['deals']) as never);
    expect(created.id).toMatch(/^\d+$/);
    expect(created.title).toBe('CRUD card');
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.auditHistory).toEqual([
      expect.objectContaining({ actionType: 'CREATE', applicationId: appId, initiatingUserId: 5 }),
    ]);

    const all = await api.getAll(appId);
    expect(all.results.map((c) => c.id)).toContain(created.id);
    const one = await api.getById(created.id, appId);
    expect(one.fetch.objectTypes).toEqual([{ name: 'deals', propertiesToSend: ['email'] }]);

    const updated = await api.update(created.id, appId, { title: 'CRUD card 2' });
    expect(updated.title).toBe('CRUD card 2');
    expect(updated.auditHistory.map((a) => a.actionType)).toEqual(['CREATE', 'UPDATE']);

    const deleted = await api.archiveWithHttpInfo(created.id, appId);
    expect(deleted.httpStatusCode).toBe(204);
    await expect(api.getById(created.id, appId)).rejects.toMatchObject({ code: 404 });
    await expect(api.create(appId, { title: 'x' } as never)).rejects.toMatchObject({ code: 400 });

    const sample = await client.crm.extensions.cards.sampleResponseApi.getCardsSampleResponse();
    expect(sample.totalCount).toBe(1);
  });

  it('acceptance: migrate a legacy card across every installed account', async () => {
    const api = client.crm.extensions.cards.cardsApi;
    const before = await api.create(appId, card('Pets', ['contacts']) as never);
    const legacy = await api.create(appId, card('Pet tickets', ['contacts', 'tickets']) as never);
    for (const hubId of customers) await recordInstall(t, appId, hubId);
    await settle(t);

    const views = async (hubId: number) => {
      const r = await fetch(`${t.url}/admin/v1/accounts/${hubId}/views`, {
        headers: { authorization: `Bearer ${t.adminKey}` },
      });
      expect(r.status).toBe(200);
      return (
        (await r.json()) as {
          views: Array<{ view: string; cards: Array<{ position: number; cardType: string; cardId: string }> }>;
        }
      ).views;
    };
    for (const hubId of customers) {
      const v = await views(hubId);
      expect(v.find((x) => x.view === 'contacts')!.cards.map((c) => c.cardId)).toEqual([before.id, legacy.id]);
      expect(v.find((x) => x.view === 'helpdesk')!.cards).toMatchObject([
        { position: 0, cardType: 'LEGACY_CRM_CARD', cardId: legacy.id },
      ]);
    }

    const register = async (title: string, objectTypes: string[]) => {
      const r = await fetch(`${t.url}/admin/v1/apps/${appId}/app-cards`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title, objectTypes }),
      });
      expect(r.status).toBe(201);
      return ((await r.json()) as { id: string }).id;
    };
    const appCardId = await register('Pet tickets (app card)', ['contacts', 'tickets']);
    const helpdeskAppCardId = await register('Pet tickets (help desk)', ['tickets']);

    const migrate = async () => {
      const r = await client.apiRequest({
        method: 'POST',
        path: `/crm/v3/extensions/cards-dev/${appId}/views/migrate`,
        body: {
          legacyCrmCardId: Number(legacy.id),
          appCardId: Number(appCardId),
          helpdeskAppCardId: Number(helpdeskAppCardId),
          allowDuplicateAppCardIds: false,
        },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      const body = (await r.json()) as {
        message: string;
        startedAt: number;
        endedAt?: number;
        totalPortalCount: number;
        remainingPortalCount: number;
      };
      expect(checkCardsResponse('POST', '/crm/v3/extensions/cards-dev/{appId}/views/migrate', 200, body)).toEqual([]);
      return body;
    };
    const started = await migrate();
    expect(started).toMatchObject({ totalPortalCount: 2, startedAt: t.clock.now() });

    // Poll until endedAt; between polls wait for the next migration event instead of sleeping.
    let progress = started;
    for (let polls = 0; progress.endedAt === undefined && polls < 10; polls++) {
      await waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted');
      progress = await migrate();
    }
    expect(progress).toMatchObject({ totalPortalCount: 2, remainingPortalCount: 0, endedAt: expect.any(Number) });
    expect(progress.message).toContain('completed');

    for (const hubId of customers) {
      const v = await views(hubId);
      // The app card holds the legacy card's old place (position 1 in contacts, 0 in tickets and help desk).
      expect(v.find((x) => x.view === 'contacts')!.cards).toMatchObject([
        { position: 0, cardType: 'LEGACY_CRM_CARD', cardId: before.id },
        { position: 1, cardType: 'APP_CARD', cardId: appCardId },
      ]);
      expect(v.find((x) => x.view === 'tickets')!.cards).toMatchObject([
        { position: 0, cardType: 'APP_CARD', cardId: appCardId },
      ]);
      expect(v.find((x) => x.view === 'helpdesk')!.cards).toMatchObject([
        { position: 0, cardType: 'APP_CARD', cardId: helpdeskAppCardId },
      ]);
    }

    const audit = await fetch(`${t.url}/admin/v1/events?type=cards.PortalCardMigrated`, {
      headers: { authorization: `Bearer ${t.adminKey}` },
    });
    const events = (
      (await audit.json()) as {
        results: Array<{ data: { hubId: number; views: Array<{ view: string; position: number }> } }>;
      }
    ).results;
    expect(events.map((e) => e.data.hubId).sort()).toEqual([...customers].sort());
    expect(events[0]!.data.views).toEqual([
      { view: 'contacts', position: 1, cardId: appCardId },
      { view: 'helpdesk', position: 0, cardId: helpdeskAppCardId },
      { view: 'tickets', position: 0, cardId: appCardId },
    ]);
  });
});
