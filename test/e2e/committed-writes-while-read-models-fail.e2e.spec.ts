import type Database from 'better-sqlite3';
import { READ_MODEL_DB } from '../../src/platform/projections/read-model-database';
import { eventsOfType, recordInstalls, settle, waitForEvent } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { CardsModule } from '../../src/cards/cards.module';
import { createAccount, createApp, startTestApp, TestApp } from '../support/test-app';

/**
 * A command whose events are committed is never answered as a failure, even when the read models
 * cannot apply them (here: the read-model file turns read-only, a real SQLITE_READONLY, while the
 * event store still takes writes). The answer comes from what the command decided and equals what the read
 * model shows once it healed; readiness reports the failed projections meanwhile and recovers by
 * itself when the file is writable again.
 */
describe('committed writes while the read models cannot catch up', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  // The read-model file turns read-only (SQLite's SQLITE_READONLY on every write), then writable again.
  const readOnly = (of = t) => of.app.get<Database.Database>(READ_MODEL_DB).pragma('query_only = ON');
  const writable = (of = t) => of.app.get<Database.Database>(READ_MODEL_DB).pragma('query_only = OFF');

  async function readinessWithin(status: number, deadlineMs: number, of = t) {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const r = await of.inject({ method: 'GET', url: '/health/ready' });
      if (r.statusCode === status || Date.now() > deadline) return r;
      await new Promise((resolve) => setTimeout(resolve, 50)); // polling readiness, bounded by the deadline
    }
  }

  it('answers account, settings, user, app and developer-key writes from the decided state, then heals', async () => {
    const developer = await createAccount(t);
    readOnly();

    const account = await t.admin('POST', '/admin/v1/accounts', {
      domain: 'while-full.example.com',
      tier: 'starter',
      hublet: 'eu1',
      timeZone: 'Europe/Berlin',
    });
    expect(account.statusCode).toBe(201);
    const created = account.json();
    expect(created).toEqual({
      hubId: expect.any(Number),
      domain: 'while-full.example.com',
      hublet: 'eu1',
      tier: 'starter',
      createdAt: expect.any(Number),
      accountType: expect.any(String),
      timeZone: 'Europe/Berlin',
      companyCurrency: expect.any(String),
      additionalCurrencies: [],
    });
    const ready = await t.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(JSON.stringify(ready.json())).toContain('directory');

    const patched = await t.admin('PATCH', `/admin/v1/accounts/${created.hubId}`, { companyCurrency: 'EUR' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({ ...created, companyCurrency: 'EUR' });

    // The user's accounts are checked against the read model: the developer account was projected before.
    const user = await t.admin('POST', '/admin/v1/users', {
      email: 'While-Full@Example.com',
      password: 'password-while-full',
      hubIds: [developer.hubId, developer.hubId],
    });
    expect(user.statusCode).toBe(201);
    const app = await t.admin('POST', '/admin/v1/apps', {
      developerHubId: developer.hubId,
      name: 'While full',
      redirectUrls: ['https://app.example.com/cb'],
      requiredScopes: ['oauth'],
      optionalScopes: ['crm.objects.contacts.read'],
    });
    expect(app.statusCode).toBe(201);
    expect(app.json().installUrl).toContain(`client_id=${app.json().clientId}`);
    const key = await t.admin('POST', `/admin/v1/accounts/${developer.hubId}/developer-api-keys`);
    expect(key.statusCode).toBe(201);

    writable();
    expect((await readinessWithin(200, 15_000)).statusCode).toBe(200);

    // What the writes answered is what the read models hold now.
    expect((await t.admin('GET', `/admin/v1/accounts/${created.hubId}`)).json()).toEqual(patched.json());
    expect((await t.admin('GET', `/admin/v1/users/${user.json().userId}`)).json()).toEqual(user.json());
    const { clientSecret: _secret, ...appView } = app.json();
    expect((await t.admin('GET', `/admin/v1/apps/${appView.appId}`)).json()).toEqual(appView);
    const keys = await t.admin('GET', `/admin/v1/accounts/${developer.hubId}/developer-api-keys`);
    expect(keys.json().results).toEqual([expect.objectContaining({ keyId: key.json().keyId })]);
  });

  it('starts a card migration while the read models fail: answered from the decision, finished once they heal', async () => {
    // The cards module alone: the installs below are recorded as bare events (no OAuth flow).
    const c = await startTestApp({ modules: [CardsModule] });
    try {
      const developer = await createAccount(c);
      const appId = (await createApp(c, { developerHubId: developer.hubId })).appId;
      const token = mintCardsToken(c, { hubId: developer.hubId, appId });
      const legacy = await c.inject({
        method: 'POST',
        url: `/crm/v3/extensions/cards-dev/${appId}`,
        headers: { authorization: `Bearer ${token}` },
        payload: {
          title: 'Legacy',
          fetch: { targetUrl: 'https://example.com/f', objectTypes: [{ name: 'contacts', propertiesToSend: [] }] },
          display: { properties: [] },
          actions: { baseUrls: [] },
        },
      });
      expect(legacy.statusCode).toBe(201);
      const appCard = await c.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
        title: 'App card',
        objectTypes: ['contacts'],
      });
      const hubIds = Array.from({ length: 150 }, (_, i) => 700_000 + i);
      await recordInstalls(c, appId, hubIds);
      await settle(c);

      readOnly(c);
      const migrate = () =>
        c.inject({
          method: 'POST',
          url: `/crm/v3/extensions/cards-dev/${appId}/views/migrate`,
          headers: { authorization: `Bearer ${token}` },
          payload: { legacyCrmCardId: legacy.json().id, appCardId: appCard.json().id, allowDuplicateAppCardIds: false },
        });
      const started = await migrate();
      expect(started.statusCode).toBe(200);
      expect(started.json()).toMatchObject({ totalPortalCount: 150, remainingPortalCount: 150 });
      expect(started.json().message).toContain('has started');
      expect((await c.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(503);

      writable(c);
      // The migration worker waited through the healing: it finishes without a restart.
      await waitForEvent(c, (e) => e.type === 'cards.MigrationCompleted');
      expect((await readinessWithin(200, 15_000, c)).statusCode).toBe(200);
      const migrated = (await eventsOfType(c, 'cards.PortalCardMigrated')).map(
        (e) => (e.data as { hubId: number }).hubId,
      );
      expect(migrated.sort((a, b) => a - b)).toEqual(hubIds);
      await settle(c);
      const done = (await migrate()).json();
      expect(done).toMatchObject({ totalPortalCount: 150, remainingPortalCount: 0, endedAt: expect.any(Number) });
    } finally {
      await c.close();
    }
  }, 60_000);
});
