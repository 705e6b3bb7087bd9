import { mintCardsToken } from '../support/cards-tokens';
import { allEvents } from '../support/oauth-fixtures';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

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
 * Which apps a credential manages on cards-dev (issue 14, finding 9; docs/cards.md "Who may call"):
 * an OAuth token only the app it was issued to; the developer API key every app of its account.
 */
describe('cards-dev: a token manages its own app, a developer API key every app of its account', () => {
  let t: TestApp;
  let devHubId: number;
  let demoAppId: number;
  let siblingAppId: number;
  beforeAll(async () => {
    t = await startTestApp();
    devHubId = (await createAccount(t)).hubId;
    demoAppId = (await createApp(t, { developerHubId: devHubId, name: 'Demo app' })).appId;
    siblingAppId = (await createApp(t, { developerHubId: devHubId, name: 'Sibling app' })).appId;
  });
  afterAll(() => t.close());

  const withToken = (method: 'GET' | 'POST', appId: number, token: string, payload?: unknown) =>
    t.inject({
      method,
      url: `/crm/v3/extensions/cards-dev/${appId}`,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });

  it('refuses a token of one app on another app of the same developer account (403), and stores nothing', async () => {
    const demoToken = mintCardsToken(t, { hubId: devHubId, appId: demoAppId });
    const head = (await allEvents(t)).length;
    for (const r of [
      await withToken('POST', siblingAppId, demoToken, card('Not mine')),
      await withToken('GET', siblingAppId, demoToken),
    ]) {
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ status: 'error', category: 'FORBIDDEN' });
      expect(r.json().message).toContain(`issued to app ${demoAppId}`);
    }
    expect((await allEvents(t)).length).toBe(head);
    // its own app: allowed
    expect((await withToken('POST', demoAppId, demoToken, card('Mine'))).statusCode).toBe(201);
  });

  it("the developer account's API key manages every app of that account", async () => {
    const key = await t.admin('POST', `/admin/v1/accounts/${devHubId}/developer-api-keys`);
    const hapikey = key.json().developerApiKey as string;
    for (const appId of [demoAppId, siblingAppId]) {
      const created = await t.inject({
        method: 'POST',
        url: `/crm/v3/extensions/cards-dev/${appId}?hapikey=${hapikey}`,
        payload: card(`Keyed ${appId}`),
      });
      expect([appId, created.statusCode]).toEqual([appId, 201]);
    }
  });
});
