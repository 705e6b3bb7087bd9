import { Client } from '@hubspot/api-client';
import { createHash } from 'node:crypto';
import { checkCardsComponent, checkCardsResponse } from '../support/cards-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { allEvents } from '../support/oauth-fixtures';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INVALID_KEY_MESSAGE =
  'The API key provided is invalid. View or manage your API key here: https://app.hubspot.com/l/api-key/';

const card = (title: string) => ({
  title,
  fetch: {
    targetUrl: 'https://www.example.com/hubspot/target',
    objectTypes: [{ name: 'contacts', propertiesToSend: ['email'] }],
  },
  display: { properties: [{ name: 'pet_name', label: 'Pets Name', dataType: 'STRING', options: [] }] },
  actions: { baseUrls: ['https://www.example.com/hubspot'] },
});

/**
 * Developer API keys: issued (and rotated) by the admin API, stored as SHA-256 only, accepted as
 * `?hapikey=` on the cards-dev endpoints for the apps of the key's developer account — so the
 * official @hubspot/api-client v14 works with only basePath and developerApiKey.
 */
describe('cards-dev with a developer API key (hapikey)', () => {
  let t: TestApp;
  const log: string[] = [];
  let devHubId: number;
  let otherDevHubId: number;
  let appId: number;
  let otherAppId: number;

  beforeAll(async () => {
    t = await startTestApp({
      listen: true,
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void log.push(line) },
    });
    devHubId = (await createAccount(t, { domain: 'key-developer.example.com' })).hubId;
    otherDevHubId = (await createAccount(t, { domain: 'other-developer.example.com' })).hubId;
    appId = (await createApp(t, { developerHubId: devHubId, name: 'Keyed app' })).appId;
    otherAppId = (await createApp(t, { developerHubId: otherDevHubId, name: 'Not yours' })).appId;
  });
  afterAll(() => t.close());

  const issueKey = async (hubId: number) => {
    const r = await t.admin('POST', `/admin/v1/accounts/${hubId}/developer-api-keys`);
    expect(r.statusCode).toBe(201);
    return r.json() as { hubId: number; keyId: string; developerApiKey: string; issuedAt: number };
  };
  const cardsDev = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, query: string, payload?: unknown) =>
    t.inject({ method, url: `/crm/v3/extensions/cards-dev/${path}${query}`, ...(payload ? { payload } : {}) });

  it('the admin API issues a key once: shown in the answer only, stored as its SHA-256', async () => {
    const issued = await issueKey(devHubId);
    expect(issued).toEqual({
      hubId: devHubId,
      keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      developerApiKey: expect.stringMatching(UUID),
      issuedAt: t.clock.now(),
    });
    const listed = await t.admin('GET', `/admin/v1/accounts/${devHubId}/developer-api-keys`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual({ results: [{ hubId: devHubId, keyId: issued.keyId, issuedAt: issued.issuedAt }] });
    expect(listed.body).not.toContain(issued.developerApiKey);

    const events = await allEvents(t);
    expect(JSON.stringify(events)).not.toContain(issued.developerApiKey);
    const stored = events.filter((e) => e.type === 'directory.DeveloperApiKeyIssued').at(-1)!;
    expect(stored.data).toEqual({
      hubId: devHubId,
      keyId: issued.keyId,
      keyHash: createHash('sha256').update(issued.developerApiKey).digest('hex'),
      issuedAt: issued.issuedAt,
    });
  });

  it('raw HTTP: the key works on every cards-dev operation of its apps; bodies valid against the spec', async () => {
    const { developerApiKey } = await issueKey(devHubId);
    const q = `?hapikey=${developerApiKey}`;
    const created = await cardsDev('POST', `${appId}`, q, card('Keyed card'));
    expect(created.statusCode).toBe(201);
    expect(checkCardsResponse('POST', '/crm/v3/extensions/cards-dev/{appId}', 201, created.json())).toEqual([]);
    const cardId = (created.json() as { id: string }).id;
    // A developer key names no user: the audit history records user 0.
    expect(created.json()).toMatchObject({ auditHistory: [{ actionType: 'CREATE', initiatingUserId: 0 }] });

    const all = await cardsDev('GET', `${appId}`, q);
    expect(all.statusCode).toBe(200);
    expect(checkCardsResponse('GET', '/crm/v3/extensions/cards-dev/{appId}', 200, all.json())).toEqual([]);
    const one = await cardsDev('GET', `${appId}/${cardId}`, q);
    expect(checkCardsResponse('GET', '/crm/v3/extensions/cards-dev/{appId}/{cardId}', 200, one.json())).toEqual([]);
    const patched = await cardsDev('PATCH', `${appId}/${cardId}`, q, { title: 'Keyed card 2' });
    expect(patched.statusCode).toBe(200);
    expect((patched.json() as { title: string }).title).toBe('Keyed card 2');
    expect((await cardsDev('DELETE', `${appId}/${cardId}`, q)).statusCode).toBe(204);

    const actors = (await allEvents(t))
      .filter((e) => e.type.startsWith('cards.LegacyCard') && (e.data as { cardId?: string }).cardId === cardId)
      .map((e) => e.metadata.actor);
    expect(actors.length).toBe(3);
    for (const actor of actors) expect(actor).toMatch(new RegExp(`^developer-api-key:[0-9a-f]{16}/hub:${devHubId}$`));
  });

  it('bad keys: HubSpot 401 INVALID_AUTHENTICATION; another account app 403; nothing stored', async () => {
    const { developerApiKey } = await issueKey(devHubId);
    const head = (await allEvents(t)).length;
    for (const query of [
      '?hapikey=00000000-0000-4000-8000-000000000000',
      '?hapikey=',
      `?hapikey=${developerApiKey}&hapikey=${developerApiKey}`,
      `?hapikey=${'a'.repeat(5000)}`,
      `?hapikey=${developerApiKey.toUpperCase()}`,
      `?hapikey=${encodeURIComponent(developerApiKey + '\u0000')}`,
    ]) {
      for (const r of [
        await cardsDev('GET', `${appId}`, query),
        await cardsDev('POST', `${appId}`, query, card('never')),
      ]) {
        expect({ query: query.slice(0, 60), status: r.statusCode }).toEqual({ query: query.slice(0, 60), status: 401 });
        expect(r.headers['content-type']).toMatch(/^application\/json/);
        expect(r.json()).toMatchObject({ category: 'INVALID_AUTHENTICATION', message: INVALID_KEY_MESSAGE });
        expect(checkCardsComponent('Error', r.json())).toEqual([]);
        expect(r.body).not.toContain(developerApiKey);
      }
    }
    const foreign = await cardsDev('POST', `${otherAppId}`, `?hapikey=${developerApiKey}`, card('not mine'));
    expect(foreign.statusCode).toBe(403);
    expect(checkCardsComponent('Error', foreign.json())).toEqual([]);
    const missing = await cardsDev('GET', '999999', `?hapikey=${developerApiKey}`);
    expect(missing.statusCode).toBe(404);
    const invalidBody = await cardsDev('POST', `${appId}`, `?hapikey=${developerApiKey}`, { title: 'x' });
    expect(invalidBody.statusCode).toBe(400);
    expect((await allEvents(t)).length).toBe(head);
  });

  it('rotation: a new key retires the old one (DeveloperApiKeyRetired); only the new one works', async () => {
    const first = await issueKey(devHubId);
    expect((await cardsDev('GET', `${appId}`, `?hapikey=${first.developerApiKey}`)).statusCode).toBe(200);
    const second = await issueKey(devHubId);
    expect(second.developerApiKey).not.toBe(first.developerApiKey);
    const old = await cardsDev('GET', `${appId}`, `?hapikey=${first.developerApiKey}`);
    expect(old.statusCode).toBe(401);
    expect((await cardsDev('GET', `${appId}`, `?hapikey=${second.developerApiKey}`)).statusCode).toBe(200);
    const retired = (await allEvents(t)).filter((e) => e.type === 'directory.DeveloperApiKeyRetired').at(-1)!;
    expect(retired.data).toEqual({ hubId: devHubId, keyId: first.keyId, retiredAt: t.clock.now() });
  });

  it('the bearer token path is unchanged: token with scopes works, without scopes 403, a token wins over hapikey', async () => {
    const token = mintCardsToken(t, { hubId: devHubId, appId, userId: 7 });
    const r = await t.inject({
      method: 'GET',
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.statusCode).toBe(200);
    const weak = mintCardsToken(t, { hubId: devHubId, appId, scopes: ['oauth'] });
    const forbidden = await t.inject({
      method: 'GET',
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: { authorization: `Bearer ${weak}` },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toMatchObject({
      category: 'MISSING_SCOPES',
      context: { requiredScopes: ['developers-read', 'private-apps-read'] },
    });
    const { developerApiKey } = await issueKey(devHubId);
    const both = await t.inject({
      method: 'GET',
      url: `/crm/v3/extensions/cards-dev/${appId}?hapikey=${developerApiKey}`,
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(both.statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: `/crm/v3/extensions/cards-dev/${appId}` })).statusCode).toBe(401);
  });

  it('admin bad input: unknown account 404, bad id 400, no admin key 401; nothing stored', async () => {
    const head = (await allEvents(t)).length;
    const unknown = await t.admin('POST', '/admin/v1/accounts/999/developer-api-keys');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ category: 'OBJECT_NOT_FOUND' });
    expect((await t.admin('GET', '/admin/v1/accounts/999/developer-api-keys')).statusCode).toBe(404);
    const badId = await t.admin('POST', '/admin/v1/accounts/1e3/developer-api-keys');
    expect(badId.statusCode).toBe(400);
    expect(badId.json()).toMatchObject({ category: 'VALIDATION_ERROR' });
    const noAdmin = await t.inject({ method: 'POST', url: `/admin/v1/accounts/${devHubId}/developer-api-keys` });
    expect(noAdmin.statusCode).toBe(401);
    expect((await allEvents(t)).length).toBe(head);
  });

  it('@hubspot/api-client v14 cardsApi works with only basePath and developerApiKey', async () => {
    const { developerApiKey } = await issueKey(devHubId);
    const client = new Client({ basePath: t.url, developerApiKey, numberOfApiCallRetries: 0 });
    const api = client.crm.extensions.cards.cardsApi;
    const created = await api.create(appId, card('Client card') as never);
    expect(created.title).toBe('Client card');
    expect(created.createdAt).toBeInstanceOf(Date);
    expect((await api.getAll(appId)).results.map((c) => c.id)).toContain(created.id);
    expect((await api.getById(created.id, appId)).id).toBe(created.id);
    expect((await api.update(created.id, appId, { title: 'Client card 2' })).title).toBe('Client card 2');
    expect((await api.archiveWithHttpInfo(created.id, appId)).httpStatusCode).toBe(204);
    await expect(api.getById(created.id, appId)).rejects.toMatchObject({ code: 404 });
    await expect(api.getAll(otherAppId)).rejects.toMatchObject({ code: 403 });

    // The migrate endpoint is not in v14's cards discovery: client.apiRequest, which sends the same hapikey.
    const legacy = await api.create(appId, card('Client legacy card') as never);
    const appCard = await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
      title: 'Client app card',
      objectTypes: ['contacts'],
    });
    expect(appCard.statusCode).toBe(201);
    const migrate = await client.apiRequest({
      method: 'POST',
      path: `/crm/v3/extensions/cards-dev/${appId}/views/migrate`,
      body: {
        legacyCrmCardId: Number(legacy.id),
        appCardId: Number((appCard.json() as { id: string }).id),
        allowDuplicateAppCardIds: false,
      },
    });
    expect(migrate.status).toBe(200);
    const progress = await migrate.json();
    expect(checkCardsResponse('POST', '/crm/v3/extensions/cards-dev/{appId}/views/migrate', 200, progress)).toEqual([]);
    expect(progress).toMatchObject({ totalPortalCount: 0, startedAt: t.clock.now() });

    const wrong = new Client({
      basePath: t.url,
      developerApiKey: '00000000-0000-4000-8000-000000000000',
      numberOfApiCallRetries: 0,
    });
    await expect(wrong.crm.extensions.cards.cardsApi.getAll(appId)).rejects.toMatchObject({
      code: 401,
      body: expect.objectContaining({ category: 'INVALID_AUTHENTICATION', message: INVALID_KEY_MESSAGE }),
    });

    // The key travelled in the query string of every call; the log holds none of it.
    const requestLines = log.filter((l) => l.includes('/crm/v3/extensions/cards-dev/'));
    expect(requestLines.length).toBeGreaterThan(5);
    expect(requestLines.some((l) => l.includes('hapikey=[REDACTED]'))).toBe(true);
    for (const line of log) expect(line).not.toContain(developerApiKey);
  });

  it('a percent-encoded parameter name reaches the guard as hapikey and is still redacted in the log', async () => {
    const { developerApiKey } = await issueKey(devHubId);
    const r = await cardsDev('GET', `${appId}`, `?h%61pikey=${developerApiKey}`);
    expect(r.statusCode).toBe(200);
    for (const line of log) expect(line).not.toContain(developerApiKey);
  });
});
