import { CardsModule } from '../../src/cards/cards.module';
import { checkCardsComponent, checkCardsResponse } from '../support/cards-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

const BASE = '/crm/v3/extensions/cards-dev';

const validCard = () => ({
  title: 'PetSpot',
  fetch: {
    targetUrl: 'https://www.example.com/hubspot/target',
    objectTypes: [{ name: 'contacts', propertiesToSend: ['email', 'firstname'] }],
  },
  display: {
    properties: [
      {
        name: 'pet_name',
        label: 'Pets Name',
        dataType: 'STATUS',
        options: [{ name: 'ok', label: 'OK', type: 'SUCCESS' }],
      },
    ],
  },
  actions: { baseUrls: ['https://www.example.com/hubspot'] },
});

describe('cards: legacy CRM cards API over HTTP', () => {
  let t: TestApp;
  let appId: number;
  let devHubId: number;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule] });
    devHubId = (await createAccount(t)).hubId;
    appId = (await createApp(t, { developerHubId: devHubId })).appId;
    token = mintCardsToken(t, { hubId: devHubId, appId, userId: 77 });
  });
  afterAll(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    bearer: string | null = token,
  ) =>
    t.inject({
      method,
      url,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(typeof payload === 'string' ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { payload: payload as string } : {}),
    });

  function expectError(
    r: { statusCode: number; json: () => unknown; headers: Record<string, unknown> },
    status: number,
    category: string,
  ) {
    expect(r.statusCode).toBe(status);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    const body = r.json() as { category: string };
    expect(body.category).toBe(category);
    expect(checkCardsComponent('Error', body)).toEqual([]);
    return body as { category: string; message: string; errors?: Array<{ in: string; code: string; message: string }> };
  }

  it('create (201 + Location), get, list, patch, delete (204) — bodies match the official schemas', async () => {
    t.clock.advance(1000);
    const created = await call('POST', `${BASE}/${appId}`, validCard());
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toMatch(/application\/json/);
    const card = created.json();
    expect(created.headers.location).toBe(`${BASE}/${appId}/${card.id}`);
    expect(checkCardsResponse('POST', `${BASE}/{appId}`, 201, card)).toEqual([]);
    expect(card).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      title: 'PetSpot',
      fetch: validCard().fetch,
      display: validCard().display,
      actions: validCard().actions,
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    expect(card.auditHistory).toEqual([
      {
        actionType: 'CREATE',
        objectTypeId: Number(card.id),
        authSource: 'APP',
        changedAt: t.clock.now(),
        applicationId: appId,
        initiatingUserId: 77,
      },
    ]);

    const got = await call('GET', `${BASE}/${appId}/${card.id}`);
    expect(got.statusCode).toBe(200);
    expect(checkCardsResponse('GET', `${BASE}/{appId}/{cardId}`, 200, got.json())).toEqual([]);

    // The spec's own example leaves display options out: accepted, answered as [].
    const noOptions = validCard();
    delete (noOptions.display.properties[0] as { options?: unknown }).options;
    const second = await call('POST', `${BASE}/${appId}`, noOptions);
    expect(second.statusCode).toBe(201);
    expect(second.json().display.properties[0].options).toEqual([]);

    const list = await call(
      'GET',
      `${BASE}/${appId}`,
      undefined,
      mintCardsToken(t, { hubId: devHubId, appId, scopes: ['private-apps-read'] }),
    );
    expect(list.statusCode).toBe(200);
    expect(checkCardsResponse('GET', `${BASE}/{appId}`, 200, list.json())).toEqual([]);
    expect(list.json().results.map((c: { id: string }) => c.id)).toEqual([card.id, second.json().id]);

    t.clock.advance(5000);
    const patched = await call('PATCH', `${BASE}/${appId}/${card.id}`, {
      title: 'PetSpot 2',
      fetch: { objectTypes: [{ name: 'deals', propertiesToSend: [] }] },
    });
    expect(patched.statusCode).toBe(200);
    expect(checkCardsResponse('PATCH', `${BASE}/{appId}/{cardId}`, 200, patched.json())).toEqual([]);
    expect(patched.json()).toMatchObject({
      title: 'PetSpot 2',
      fetch: { targetUrl: validCard().fetch.targetUrl, objectTypes: [{ name: 'deals', propertiesToSend: [] }] },
      updatedAt: new Date(t.clock.now()).toISOString(),
    });
    expect(patched.json().auditHistory.map((a: { actionType: string }) => a.actionType)).toEqual(['CREATE', 'UPDATE']);

    const deleted = await call('DELETE', `${BASE}/${appId}/${card.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectError(await call('GET', `${BASE}/${appId}/${card.id}`), 404, 'OBJECT_NOT_FOUND');
    expectError(await call('DELETE', `${BASE}/${appId}/${card.id}`), 404, 'OBJECT_NOT_FOUND');
    expectError(await call('PATCH', `${BASE}/${appId}/${card.id}`, { title: 'x' }), 404, 'OBJECT_NOT_FOUND');

    // The audit trail of the card is its own stream.
    const events = await t.admin('GET', `/admin/v1/events?stream=cards.card-${card.id}`);
    expect(events.json().results.map((e: { type: string }) => e.type)).toEqual([
      'cards.LegacyCardCreated',
      'cards.LegacyCardUpdated',
      'cards.LegacyCardDeleted',
    ]);
  });

  it('sample-response matches IntegratorCardPayloadResponse', async () => {
    const r = await call('GET', `${BASE}/sample-response`);
    expect(r.statusCode).toBe(200);
    expect(checkCardsResponse('GET', `${BASE}/sample-response`, 200, r.json())).toEqual([]);
  });

  describe('authentication and ownership', () => {
    it('401 without or with a bad token; 403 MISSING_SCOPES without the scope', async () => {
      expectError(await call('GET', `${BASE}/${appId}`, undefined, null), 401, 'INVALID_AUTHENTICATION');
      expectError(await call('GET', `${BASE}/${appId}`, undefined, 'not-a-token'), 401, 'INVALID_AUTHENTICATION');
      const expired = mintCardsToken(t, { hubId: devHubId, appId, ttlMs: -1000 });
      expectError(await call('GET', `${BASE}/${appId}`, undefined, expired), 401, 'EXPIRED_AUTHENTICATION');
      const readOnly = mintCardsToken(t, { hubId: devHubId, appId, scopes: ['developers-read'] });
      const body = expectError(await call('POST', `${BASE}/${appId}`, validCard(), readOnly), 403, 'MISSING_SCOPES');
      expect(body).toMatchObject({ context: { requiredScopes: ['developers-write'] } });
      const writeOnly = mintCardsToken(t, { hubId: devHubId, appId, scopes: ['developers-write'] });
      expectError(await call('GET', `${BASE}/${appId}`, undefined, writeOnly), 403, 'MISSING_SCOPES');
      for (const [method, url] of [
        ['PATCH', `${BASE}/${appId}/1`],
        ['DELETE', `${BASE}/${appId}/1`],
        ['POST', `${BASE}/${appId}/views/migrate`],
      ] as const) {
        expectError(await call(method, url, {}, readOnly), 403, 'MISSING_SCOPES');
      }
    });

    it("403 for another developer's app, 404 for an unknown app", async () => {
      const other = (await createAccount(t)).hubId;
      const foreign = mintCardsToken(t, { hubId: other, appId });
      expectError(await call('GET', `${BASE}/${appId}`, undefined, foreign), 403, 'FORBIDDEN');
      expectError(await call('POST', `${BASE}/${appId}`, validCard(), foreign), 403, 'FORBIDDEN');
      expectError(await call('GET', `${BASE}/999999`), 404, 'OBJECT_NOT_FOUND');
      expectError(await call('POST', `${BASE}/999999`, validCard()), 404, 'OBJECT_NOT_FOUND');
    });

    it('a card of another app of the same developer is 404 under this app', async () => {
      const otherApp = (await createApp(t, { developerHubId: devHubId })).appId;
      // created with a token of that app (a token manages only its own app's cards)
      const c = await call(
        'POST',
        `${BASE}/${otherApp}`,
        validCard(),
        mintCardsToken(t, { hubId: devHubId, appId: otherApp }),
      );
      expect(c.statusCode).toBe(201);
      expectError(await call('GET', `${BASE}/${appId}/${c.json().id}`), 404, 'OBJECT_NOT_FOUND');
      expectError(await call('DELETE', `${BASE}/${appId}/${c.json().id}`), 404, 'OBJECT_NOT_FOUND');
    });
  });

  describe('bad input', () => {
    it.each([
      ['appId not a number', 'GET', `${BASE}/abc`, 'appId'],
      ['appId above int32', 'GET', `${BASE}/2147483648`, 'appId'],
      ['appId zero', 'POST', `${BASE}/0`, 'appId'],
      ['cardId not digits', 'GET', `${BASE}/APP/x1`, 'cardId'],
      ['cardId beyond int64', 'GET', `${BASE}/APP/9223372036854775808`, 'cardId'],
      ['cardId letters', 'PATCH', `${BASE}/APP/abc`, 'cardId'],
      ['cardId negative', 'DELETE', `${BASE}/APP/-5`, 'cardId'],
    ] as const)('%s → 400 naming it', async (_name, method, url, field) => {
      const r = await call(
        method,
        url.replace('APP', String(appId)),
        method === 'PATCH' ? { title: 'x' } : method === 'POST' ? validCard() : undefined,
      );
      const body = expectError(r, 400, 'VALIDATION_ERROR');
      expect(body.errors?.map((e) => e.in)).toEqual([field]);
    });

    it.each([
      ['empty object', {}, ['title', 'fetch', 'display', 'actions']],
      ['title not a string', { ...validCard(), title: 5 }, ['title']],
      ['empty title', { ...validCard(), title: '' }, ['title']],
      ['fetch not an object', { ...validCard(), fetch: 'x' }, ['fetch']],
      [
        'fetch without targetUrl',
        { ...validCard(), fetch: { objectTypes: validCard().fetch.objectTypes } },
        ['fetch.targetUrl'],
      ],
      [
        'targetUrl not a URL',
        { ...validCard(), fetch: { ...validCard().fetch, targetUrl: 'javascript:alert(1)' } },
        ['fetch.targetUrl'],
      ],
      ['no object types', { ...validCard(), fetch: { ...validCard().fetch, objectTypes: [] } }, ['fetch.objectTypes']],
      [
        'unknown object type',
        {
          ...validCard(),
          fetch: { ...validCard().fetch, objectTypes: [{ name: 'marketing_events', propertiesToSend: [] }] },
        },
        ['fetch.objectTypes.0.name'],
      ],
      [
        'object type twice',
        {
          ...validCard(),
          fetch: {
            ...validCard().fetch,
            objectTypes: [
              { name: 'deals', propertiesToSend: [] },
              { name: 'deals', propertiesToSend: [] },
            ],
          },
        },
        ['fetch.objectTypes'],
      ],
      [
        'propertiesToSend missing',
        { ...validCard(), fetch: { ...validCard().fetch, objectTypes: [{ name: 'deals' }] } },
        ['fetch.objectTypes.0.propertiesToSend'],
      ],
      ['bad cardType', { ...validCard(), fetch: { ...validCard().fetch, cardType: 'INTERNAL' } }, ['fetch.cardType']],
      ['display without properties', { ...validCard(), display: {} }, ['display.properties']],
      [
        'display property with a bad dataType',
        { ...validCard(), display: { properties: [{ name: 'a', label: 'A', dataType: 'TEXT' }] } },
        ['display.properties.0.dataType'],
      ],
      [
        'display option with a bad type',
        {
          ...validCard(),
          display: {
            properties: [
              { name: 'a', label: 'A', dataType: 'STATUS', options: [{ name: 'x', label: 'X', type: 'RED' }] },
            ],
          },
        },
        ['display.properties.0.options.0.type'],
      ],
      ['actions.baseUrls not URLs', { ...validCard(), actions: { baseUrls: ['nope'] } }, ['actions.baseUrls']],
      ['actions missing baseUrls', { ...validCard(), actions: {} }, ['actions.baseUrls']],
    ])('create with %s → 400 naming the fields', async (_name, body, fields) => {
      const r = expectError(await call('POST', `${BASE}/${appId}`, body), 400, 'VALIDATION_ERROR');
      expect([...new Set(r.errors!.map((e) => e.in))].sort()).toEqual([...fields].sort());
    });

    it('patch validates its own shape (fetch needs objectTypes, parts must be objects)', async () => {
      const c = (await call('POST', `${BASE}/${appId}`, validCard())).json();
      const url = `${BASE}/${appId}/${c.id}`;
      let r = expectError(
        await call('PATCH', url, { fetch: { targetUrl: 'https://example.com' } }),
        400,
        'VALIDATION_ERROR',
      );
      expect(r.errors!.map((e) => e.in)).toEqual(['fetch.objectTypes']);
      r = expectError(await call('PATCH', url, { title: '', display: 3 }), 400, 'VALIDATION_ERROR');
      expect(r.errors!.map((e) => e.in).sort()).toEqual(['display', 'title']);
      // an empty patch is valid: recorded as an UPDATE that changes nothing
      const empty = await call('PATCH', url, {});
      expect(empty.statusCode).toBe(200);
      expect(empty.json().title).toBe('PetSpot');
    });

    it('malformed JSON, a non-object body, a huge body: 4xx, never 5xx', async () => {
      expectError(await call('POST', `${BASE}/${appId}`, '{"title": '), 400, 'VALIDATION_ERROR');
      expectError(await call('POST', `${BASE}/${appId}`, '[1,2]'), 400, 'VALIDATION_ERROR');
      expectError(
        await call('POST', `${BASE}/${appId}`, JSON.stringify({ ...validCard(), title: 'a\u0000b'.repeat(100) })),
        400,
        'VALIDATION_ERROR',
      );
      const huge = JSON.stringify({ ...validCard(), title: 'x'.repeat(2 * 1024 * 1024) });
      const r = await call('POST', `${BASE}/${appId}`, huge);
      expect(r.statusCode).toBe(413);
    });
  });
});
