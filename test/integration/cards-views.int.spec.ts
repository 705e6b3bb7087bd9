import { CardsModule } from '../../src/cards/cards.module';
import { recordInstall, recordUninstall, settle, waitForEvent } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

/**
 * The views read model: installs place an app's live legacy cards at the end of every record view
 * of their object types (help desk too for tickets); later cards reach every installed account;
 * deletes, patches and uninstalls take them away; a migration swaps the app card into place.
 */
describe('cards: account views', () => {
  let t: TestApp;
  let appId: number;
  let token: string;
  let hubs: number[];

  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule] });
    const dev = await createAccount(t);
    appId = (await createApp(t, { developerHubId: dev.hubId })).appId;
    token = mintCardsToken(t, { hubId: dev.hubId, appId });
    hubs = [];
    for (let i = 0; i < 3; i++) hubs.push((await createAccount(t)).hubId);
  });
  afterAll(() => t.close());

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload: payload as object } : {}),
    });

  const card = (title: string, objectTypes: string[]) => ({
    title,
    fetch: {
      targetUrl: 'https://example.com/fetch',
      objectTypes: objectTypes.map((name) => ({ name, propertiesToSend: [] })),
    },
    display: { properties: [] },
    actions: { baseUrls: ['https://example.com'] },
  });

  async function createLegacy(title: string, objectTypes: string[]): Promise<string> {
    const r = await api('POST', `/crm/v3/extensions/cards-dev/${appId}`, card(title, objectTypes));
    expect(r.statusCode).toBe(201);
    return r.json().id as string;
  }

  async function views(hubId: number): Promise<Record<string, string[]>> {
    await settle(t);
    const r = await t.admin('GET', `/admin/v1/accounts/${hubId}/views`);
    expect(r.statusCode).toBe(200);
    const out: Record<string, string[]> = {};
    for (const v of r.json().views as Array<{
      view: string;
      cards: Array<{ position: number; cardType: string; cardId: string }>;
    }>) {
      v.cards.forEach((c, i) => expect(c.position).toBe(i));
      out[v.view] = v.cards.map((c) => `${c.cardType === 'APP_CARD' ? 'A' : 'L'}${c.cardId}`);
    }
    return out;
  }

  it('places, spreads, removes and swaps cards in the views of installed accounts', async () => {
    const tickets = await createLegacy('Tickets card', ['contacts', 'tickets']);
    const deals = await createLegacy('Deals card', ['deals']);
    const [h1, h2, h3] = hubs as [number, number, number];

    expect(await views(h1)).toEqual({ contacts: [], companies: [], deals: [], tickets: [], helpdesk: [] });
    await recordInstall(t, appId, h1);
    await recordInstall(t, appId, h2);
    await recordInstall(t, appId, h1); // re-authorization: nothing placed twice
    expect(await views(h1)).toEqual({
      contacts: [`L${tickets}`],
      companies: [],
      deals: [`L${deals}`],
      tickets: [`L${tickets}`],
      helpdesk: [`L${tickets}`],
    });

    // A card created later lands at the end of the sidebar of every installed account only.
    const late = await createLegacy('Late card', ['contacts', 'companies']);
    expect((await views(h2)).contacts).toEqual([`L${tickets}`, `L${late}`]);
    expect((await views(h3)).contacts).toEqual([]);

    // Patching object types moves the card out of (and into) views.
    const patched = await api('PATCH', `/crm/v3/extensions/cards-dev/${appId}/${deals}`, {
      fetch: { objectTypes: [{ name: 'companies', propertiesToSend: ['domain'] }] },
    });
    expect(patched.statusCode).toBe(200);
    expect(await views(h1)).toMatchObject({ deals: [], companies: [`L${late}`, `L${deals}`] });

    // Deleting removes it everywhere.
    expect((await api('DELETE', `/crm/v3/extensions/cards-dev/${appId}/${late}`)).statusCode).toBe(204);
    expect(await views(h2)).toMatchObject({ contacts: [`L${tickets}`], companies: [`L${deals}`] });

    // Migration: the app cards take the legacy card's places.
    const appCard = (
      await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, { title: 'New', objectTypes: ['contacts', 'tickets'] })
    ).json().id;
    const helpdesk = (
      await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, { title: 'Desk', objectTypes: ['tickets'] })
    ).json().id;
    const migrate = await api('POST', `/crm/v3/extensions/cards-dev/${appId}/views/migrate`, {
      legacyCrmCardId: Number(tickets),
      appCardId: Number(appCard),
      helpdeskAppCardId: Number(helpdesk),
      allowDuplicateAppCardIds: false,
    });
    expect(migrate.statusCode).toBe(200);
    expect(migrate.json()).toMatchObject({ totalPortalCount: 2 });
    await waitForEvent(t, (e) => e.type === 'cards.MigrationCompleted');
    for (const h of [h1, h2]) {
      expect(await views(h)).toEqual({
        contacts: [`A${appCard}`],
        companies: [`L${deals}`],
        deals: [],
        tickets: [`A${appCard}`],
        helpdesk: [`A${helpdesk}`],
      });
    }

    // Installed after the start: the app card directly. Uninstall: the app's cards leave.
    await recordInstall(t, appId, h3);
    expect(await views(h3)).toEqual({
      contacts: [`A${appCard}`],
      companies: [`L${deals}`],
      deals: [],
      tickets: [`A${appCard}`],
      helpdesk: [`A${helpdesk}`],
    });
    await recordUninstall(t, appId, h1);
    expect(await views(h1)).toEqual({ contacts: [], companies: [], deals: [], tickets: [], helpdesk: [] });

    const again = await api('POST', `/crm/v3/extensions/cards-dev/${appId}/views/migrate`, {
      legacyCrmCardId: Number(tickets),
      appCardId: Number(appCard),
      helpdeskAppCardId: Number(helpdesk),
      allowDuplicateAppCardIds: false,
    });
    expect(again.json()).toMatchObject({ totalPortalCount: 2, remainingPortalCount: 0, endedAt: expect.any(Number) });
  });

  it('shows 404 for an unknown account', async () => {
    const r = await t.admin('GET', '/admin/v1/accounts/999999/views');
    expect(r.statusCode).toBe(404);
    expect(r.json().category).toBe('OBJECT_NOT_FOUND');
  });
});
