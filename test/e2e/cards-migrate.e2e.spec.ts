import { CardsModule } from '../../src/cards/cards.module';
import { recordInstalls, settle } from '../support/cards-fixtures';
import { checkCardsComponent, checkCardsResponse } from '../support/cards-schema';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

const BASE = '/crm/v3/extensions/cards-dev';
const MIGRATE = `${BASE}/{appId}/views/migrate`;

/**
 * Every way the migrate endpoint refuses a request. The worker is held (it migrates no account
 * in this process), so every started migration stays in progress and the answers are exact.
 */
describe('cards: POST /views/migrate validation', () => {
  let t: TestApp;
  let appId: number;
  let otherAppId: number;
  let devHubId: number;
  let token: string;
  const ids: Record<string, string> = {};

  const legacy = (objectTypes: string[]) => ({
    title: `Legacy ${objectTypes.join('+')}`,
    fetch: {
      targetUrl: 'https://example.com/f',
      objectTypes: objectTypes.map((name) => ({ name, propertiesToSend: [] })),
    },
    display: { properties: [] },
    actions: { baseUrls: [] },
  });

  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule.withWorkerOptions({ maxPortalsPerProcess: 0 })] });
    devHubId = (await createAccount(t)).hubId;
    appId = (await createApp(t, { developerHubId: devHubId })).appId;
    otherAppId = (await createApp(t, { developerHubId: devHubId })).appId;
    token = mintCardsToken(t, { hubId: devHubId, appId });
    const create = async (app: number, body: unknown) => {
      const r = await t.inject({
        method: 'POST',
        url: `${BASE}/${app}`,
        // a token manages only the cards of the app it was issued to
        headers: {
          authorization: `Bearer ${app === appId ? token : mintCardsToken(t, { hubId: devHubId, appId: app })}`,
        },
        payload: body as object,
      });
      expect(r.statusCode).toBe(201);
      return r.json().id as string;
    };
    const appCard = async (app: number, objectTypes: string[]) => {
      const r = await t.admin('POST', `/admin/v1/apps/${app}/app-cards`, { title: 'App card', objectTypes });
      expect(r.statusCode).toBe(201);
      return r.json().id as string;
    };
    ids.contacts = await create(appId, legacy(['contacts']));
    ids.contacts2 = await create(appId, legacy(['contacts', 'companies']));
    ids.contacts3 = await create(appId, legacy(['deals']));
    ids.tickets = await create(appId, legacy(['tickets']));
    ids.deleted = await create(appId, legacy(['contacts']));
    ids.otherAppLegacy = await create(otherAppId, legacy(['contacts']));
    ids.appCard = await appCard(appId, ['contacts']);
    ids.appCard2 = await appCard(appId, ['contacts']);
    ids.helpdesk = await appCard(appId, ['tickets']);
    ids.otherAppCard = await appCard(otherAppId, ['contacts']);
    const del = await t.inject({
      method: 'DELETE',
      url: `${BASE}/${appId}/${ids.deleted}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(del.statusCode).toBe(204);
    await recordInstalls(t, appId, [9001, 9002, 9003]);
    await settle(t);
  });
  afterAll(() => t.close());

  const migrate = (body: unknown, app: number | string = appId, bearer = token) =>
    t.inject({
      method: 'POST',
      url: `${BASE}/${app}/views/migrate`,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
      },
      payload: body as string,
    });

  function expectError(r: { statusCode: number; json: () => unknown }, status: number, category: string) {
    expect(r.statusCode).toBe(status);
    const body = r.json() as { category: string; message: string; errors?: Array<{ in: string; code: string }> };
    expect(body.category).toBe(category);
    expect(checkCardsComponent('Error', body)).toEqual([]);
    return body;
  }

  describe('body shape (CardMigrateViewsRequest)', () => {
    it('every required field missing → one REQUIRED error each', async () => {
      const body = expectError(await migrate({}), 400, 'VALIDATION_ERROR');
      expect(body.errors!.map((e) => [e.in, e.code]).sort()).toEqual([
        ['allowDuplicateAppCardIds', 'REQUIRED'],
        ['appCardId', 'REQUIRED'],
        ['legacyCrmCardId', 'REQUIRED'],
      ]);
    });

    const valid = () => ({
      legacyCrmCardId: Number(ids.contacts),
      appCardId: Number(ids.appCard),
      allowDuplicateAppCardIds: false,
    });
    it.each([
      ['allowDuplicateAppCardIds as a string', { allowDuplicateAppCardIds: 'false' }, 'allowDuplicateAppCardIds'],
      ['allowDuplicateAppCardIds null', { allowDuplicateAppCardIds: null }, 'allowDuplicateAppCardIds'],
      ['appCardId fractional', { appCardId: 1.5 }, 'appCardId'],
      ['appCardId negative', { appCardId: -4 }, 'appCardId'],
      ['appCardId zero', { appCardId: 0 }, 'appCardId'],
      ['appCardId beyond int64', { appCardId: 1e20 }, 'appCardId'],
      ['appCardId as words', { appCardId: 'twelve' }, 'appCardId'],
      ['appCardId boolean', { appCardId: true }, 'appCardId'],
      ['appCardId object', { appCardId: { id: 1 } }, 'appCardId'],
      ['legacyCrmCardId beyond int64 (string)', { legacyCrmCardId: '9223372036854775808' }, 'legacyCrmCardId'],
      ['legacyCrmCardId array', { legacyCrmCardId: [1] }, 'legacyCrmCardId'],
      ['helpdeskAppCardId invalid', { helpdeskAppCardId: 'x' }, 'helpdeskAppCardId'],
    ])('%s → VALIDATION_ERROR naming it', async (_name, change, field) => {
      const body = expectError(await migrate({ ...valid(), ...change }), 400, 'VALIDATION_ERROR');
      expect(body.errors!.map((e) => e.in)).toEqual([field]);
    });

    it('not a JSON object, malformed JSON → 400', async () => {
      expectError(await migrate('[]'), 400, 'VALIDATION_ERROR');
      expectError(await migrate('"x"'), 400, 'VALIDATION_ERROR');
      expectError(await migrate('{"legacyCrmCardId":'), 400, 'VALIDATION_ERROR');
    });

    it.each([
      ['abc', 'appId'],
      ['2147483648', 'appId'],
      ['-1', 'appId'],
    ])('appId %s → VALIDATION_ERROR naming appId', async (app, field) => {
      const body = expectError(await migrate(valid(), app), 400, 'VALIDATION_ERROR');
      expect(body.errors!.map((e) => e.in)).toEqual([field]);
    });
  });

  describe('against the cards of the app', () => {
    const req = (over: Record<string, unknown>) => ({ allowDuplicateAppCardIds: false, ...over });

    it('unknown or foreign ids → 404 OBJECT_NOT_FOUND', async () => {
      for (const body of [
        req({ legacyCrmCardId: 77777777, appCardId: ids.appCard }),
        req({ legacyCrmCardId: ids.otherAppLegacy, appCardId: ids.appCard }),
        req({ legacyCrmCardId: ids.deleted, appCardId: ids.appCard }),
        req({ legacyCrmCardId: ids.appCard, appCardId: ids.appCard2 }), // an app card is not a legacy card
        req({ legacyCrmCardId: ids.contacts, appCardId: 77777777 }),
        req({ legacyCrmCardId: ids.contacts, appCardId: ids.otherAppCard }),
        req({ legacyCrmCardId: ids.contacts, appCardId: ids.contacts2 }), // a legacy card is not an app card
        req({ legacyCrmCardId: ids.tickets, appCardId: ids.appCard, helpdeskAppCardId: 77777777 }),
      ]) {
        const r = expectError(await migrate(body), 404, 'OBJECT_NOT_FOUND');
        expect(r.message).toMatch(/was not found/);
      }
    });

    it('a tickets card needs helpdeskAppCardId', async () => {
      const body = expectError(
        await migrate(req({ legacyCrmCardId: ids.tickets, appCardId: ids.appCard })),
        400,
        'VALIDATION_ERROR',
      );
      expect(body.errors).toEqual([expect.objectContaining({ in: 'helpdeskAppCardId', code: 'REQUIRED' })]);
      expect(body.message).toContain('help-desk');
    });

    it("an unknown app is 404, someone else's app 403", async () => {
      expectError(
        await migrate(req({ legacyCrmCardId: ids.contacts, appCardId: ids.appCard }), 424242),
        404,
        'OBJECT_NOT_FOUND',
      );
      const stranger = mintCardsToken(t, { hubId: (await createAccount(t)).hubId, appId });
      expectError(
        await migrate(req({ legacyCrmCardId: ids.contacts, appCardId: ids.appCard }), appId, stranger),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('start, repeat, duplicates and conflicts', () => {
    it('starts (200 at once), repeats as a progress report, refuses a second target, guards app cards', async () => {
      const first = await migrate({
        legacyCrmCardId: Number(ids.contacts),
        appCardId: Number(ids.appCard),
        allowDuplicateAppCardIds: false,
      });
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toMatch(/application\/json/);
      expect(checkCardsResponse('POST', MIGRATE, 200, first.json())).toEqual([]);
      expect(first.json()).toEqual({
        message: expect.stringContaining('has started'),
        startedAt: t.clock.now(),
        totalPortalCount: 3,
        remainingPortalCount: 3,
      });

      t.clock.advance(60_000);
      const again = await migrate({
        legacyCrmCardId: ids.contacts,
        appCardId: ids.appCard,
        allowDuplicateAppCardIds: true,
      });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({
        message: expect.stringContaining('in progress: 3 of 3'),
        startedAt: first.json().startedAt,
        totalPortalCount: 3,
        remainingPortalCount: 3,
      });

      // Already migrating to another app card → 409.
      const conflict = expectError(
        await migrate({ legacyCrmCardId: ids.contacts, appCardId: ids.appCard2, allowDuplicateAppCardIds: true }),
        409,
        'CONFLICT',
      );
      expect(conflict.message).toContain(`app card ${ids.appCard}`);

      // Another legacy card into the same app card: refused unless allowed, with how to fix it.
      const dup = expectError(
        await migrate({ legacyCrmCardId: ids.contacts2, appCardId: ids.appCard, allowDuplicateAppCardIds: false }),
        400,
        'VALIDATION_ERROR',
      );
      expect(dup.message).toContain('allowDuplicateAppCardIds');
      expect(dup.message).toContain(`legacy CRM card ${ids.contacts}`);
      expect(dup.errors).toEqual([expect.objectContaining({ in: 'appCardId', code: 'DUPLICATE_APP_CARD_ID' })]);

      const allowed = await migrate({
        legacyCrmCardId: ids.contacts2,
        appCardId: ids.appCard,
        allowDuplicateAppCardIds: true,
      });
      expect(allowed.statusCode).toBe(200);
      expect(checkCardsResponse('POST', MIGRATE, 200, allowed.json())).toEqual([]);

      // The duplicate rule also protects the help-desk target.
      const tick = await migrate({
        legacyCrmCardId: ids.tickets,
        appCardId: ids.appCard2,
        helpdeskAppCardId: ids.helpdesk,
        allowDuplicateAppCardIds: false,
      });
      expect(tick.statusCode).toBe(200);
      const dupDesk = expectError(
        await migrate({ legacyCrmCardId: ids.contacts3, appCardId: ids.helpdesk, allowDuplicateAppCardIds: false }),
        400,
        'VALIDATION_ERROR',
      );
      expect(dupDesk.errors![0]!.in).toBe('appCardId');
    });

    it('a legacy card under migration cannot be deleted (409) until the migration ends', async () => {
      const r = await t.inject({
        method: 'DELETE',
        url: `${BASE}/${appId}/${ids.contacts}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expectError(r, 409, 'CONFLICT');
    });

    it('the start is in the audit trail, without a count of accounts the read model owns', async () => {
      const events = await t.admin('GET', `/admin/v1/events?stream=cards.migration-${ids.contacts}`);
      expect(events.json().results).toEqual([
        expect.objectContaining({
          type: 'cards.MigrationStarted',
          data: {
            appId,
            legacyCardId: ids.contacts,
            appCardId: ids.appCard,
            allowDuplicateAppCardIds: false,
            startedAt: expect.any(Number),
          },
        }),
      ]);
      // The card's own stream records that it is being migrated: what refuses its delete.
      const card = await t.admin('GET', `/admin/v1/events?stream=cards.card-${ids.contacts}`);
      expect(card.json().results.map((e: { type: string }) => e.type)).toEqual([
        'cards.LegacyCardCreated',
        'cards.LegacyCardMigrationStarted',
      ]);
    });
  });
});
