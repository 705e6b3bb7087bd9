import { CardsQueries } from '../../src/cards/application/cards.queries';
import { DeleteLegacyCard, DeleteLegacyCardHandler } from '../../src/cards/application/commands/delete-legacy-card';
import {
  StartCardMigration,
  StartCardMigrationHandler,
} from '../../src/cards/application/commands/start-card-migration';
import { CardsModule } from '../../src/cards/cards.module';
import { CLOCK } from '../../src/platform/clock';
import { EventStreams } from '../../src/platform/commands/event-streams';
import { HubSpotError } from '../../src/platform/errors/hubspot-error';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { recordInstalls, settle } from '../support/cards-fixtures';
import { mintCardsToken } from '../support/cards-tokens';
import { createAccount, createApp, startTestApp, type TestApp } from '../support/test-app';

const BASE = '/crm/v3/extensions/cards-dev';
const ctx = { correlationId: '00000000-0000-4000-8000-0000000000aa', actor: 'test:second-instance' };

/**
 * Races the migrate endpoint loses nothing to: a delete against a start on the same legacy card,
 * and two instances (each with its own in-process state) claiming one app card at once. The
 * worker is held, so started migrations stay in progress.
 */
describe('cards: migrate races', () => {
  let t: TestApp;
  let appId: number;
  let token: string;
  let store: EventStore;

  const legacyBody = {
    title: 'Legacy',
    fetch: { targetUrl: 'https://example.com/f', objectTypes: [{ name: 'contacts', propertiesToSend: [] }] },
    display: { properties: [] },
    actions: { baseUrls: [] },
  };
  const request = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  const createLegacy = async () => {
    const r = await request('POST', `${BASE}/${appId}`, legacyBody);
    expect(r.statusCode).toBe(201);
    return r.json().id as string;
  };
  const createAppCard = async () => {
    const r = await t.admin('POST', `/admin/v1/apps/${appId}/app-cards`, {
      title: 'App card',
      objectTypes: ['contacts'],
    });
    expect(r.statusCode).toBe(201);
    return r.json().id as string;
  };
  const migrate = (legacyCrmCardId: string, appCardId: string, allowDuplicateAppCardIds: boolean) =>
    request('POST', `${BASE}/${appId}/views/migrate`, { legacyCrmCardId, appCardId, allowDuplicateAppCardIds });

  beforeAll(async () => {
    t = await startTestApp({ modules: [CardsModule.withWorkerOptions({ maxPortalsPerProcess: 0 })] });
    const devHubId = (await createAccount(t)).hubId;
    appId = (await createApp(t, { developerHubId: devHubId })).appId;
    token = mintCardsToken(t, { hubId: devHubId, appId });
    store = t.app.get<EventStore>(EVENT_STORE);
    await recordInstalls(t, appId, [9101, 9102]);
    await settle(t);
  });
  afterAll(() => t.close());

  it('a delete and a migration start of one legacy card, at once: exactly one wins, and the store agrees', async () => {
    const outcomes = { deleted: 0, migrated: 0 };
    for (let round = 0; round < 12; round++) {
      const cardId = await createLegacy();
      const appCardId = await createAppCard();
      // Alternate who is sent first, so both orders of arrival are exercised.
      const [del, mig] =
        round % 2 === 0
          ? await Promise.all([request('DELETE', `${BASE}/${appId}/${cardId}`), migrate(cardId, appCardId, false)])
          : await Promise.all([
              migrate(cardId, appCardId, false),
              request('DELETE', `${BASE}/${appId}/${cardId}`),
            ]).then(([m, d]) => [d, m] as const);
      const started = (await store.readStream(`cards.migration-${cardId}`)).filter(
        (e) => e.type === 'cards.MigrationStarted',
      );
      const cardEvents = (await store.readStream(`cards.card-${cardId}`)).map((e) => e.type);
      if (del.statusCode === 204) {
        outcomes.deleted++;
        expect({ round, migrate: mig.statusCode }).toEqual({ round, migrate: 404 });
        expect(started).toEqual([]);
        // A claim made before the delete won was released: the app card is free for another card.
        const other = await createLegacy();
        expect((await migrate(other, appCardId, false)).statusCode).toBe(200);
      } else {
        outcomes.migrated++;
        expect({ round, delete: del.statusCode, migrate: mig.statusCode }).toEqual({
          round,
          delete: 409,
          migrate: 200,
        });
        expect(del.json().category).toBe('CONFLICT');
        expect(started).toHaveLength(1);
        expect(cardEvents).not.toContain('cards.LegacyCardDeleted');
        expect(cardEvents).toContain('cards.LegacyCardMigrationStarted');
      }
    }
    expect(outcomes.deleted + outcomes.migrated).toBe(12);
  });

  it('a delete held between its checks and its append while a migration starts is refused (409)', async () => {
    // Deterministic worst case: the delete has read everything it reads before deciding, then the
    // whole migration start happens, then the delete appends. Only the card stream can stop it.
    const cardId = await createLegacy();
    const appCardId = await createAppCard();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const reached = new Promise<void>((resolve) => (held = resolve));
    const gated: EventStore = Object.create(store, {
      readStream: {
        value: async (streamId: string, from?: number) => {
          if (streamId === `cards.card-${cardId}`) {
            held();
            await gate;
          }
          return store.readStream(streamId, from);
        },
      },
    });
    const clock = t.app.get(CLOCK, { strict: false });
    const deleting = new DeleteLegacyCardHandler(
      new EventStreams(gated, clock),
      t.app.get(ProjectionRunner, { strict: false }),
      t.app.get(CardsQueries, { strict: false }),
      clock,
    );
    const del = deleting.execute(new DeleteLegacyCard(appId, cardId, 1, ctx)).then(
      () => 'deleted',
      (e: unknown) => e,
    );
    await reached;
    expect((await migrate(cardId, appCardId, false)).statusCode).toBe(200);
    release();
    const outcome = await del;
    expect(outcome).toBeInstanceOf(HubSpotError);
    expect(outcome).toMatchObject({ httpStatus: 409, category: 'CONFLICT' });
    expect((outcome as HubSpotError).message).toContain(`being migrated to app card ${appCardId}`);
    expect((await store.readStream(`cards.card-${cardId}`)).map((e) => e.type)).not.toContain(
      'cards.LegacyCardDeleted',
    );
  });

  it('two instances claiming one app card at once (no duplicates allowed): exactly one starts', async () => {
    // A second StartCardMigrationHandler over the same store and read model: another process, as
    // far as any in-process lock or memory is concerned.
    const first = t.app.get(StartCardMigrationHandler, { strict: false });
    const second = new StartCardMigrationHandler(
      t.app.get(EventStreams, { strict: false }),
      t.app.get(ProjectionRunner, { strict: false }),
      t.app.get(CardsQueries, { strict: false }),
      t.app.get(CLOCK, { strict: false }),
    );
    for (let round = 0; round < 6; round++) {
      const [a, b] = [await createLegacy(), await createLegacy()];
      const appCardId = await createAppCard();
      const start = (legacyCardId: string, context: typeof ctx) =>
        new StartCardMigration({ appId, legacyCardId, appCardId, allowDuplicateAppCardIds: false }, context);
      const results = await Promise.allSettled([
        first.execute(start(a, { ...ctx, correlationId: '00000000-0000-4000-8000-0000000000a1' })),
        second.execute(start(b, ctx)),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect({ round, won: won.length, lost: lost.length }).toEqual({ round, won: 1, lost: 1 });
      const error = lost[0]!.reason as HubSpotError;
      expect(error).toBeInstanceOf(HubSpotError);
      expect(error.httpStatus).toBe(400);
      expect(error.message).toContain('allowDuplicateAppCardIds');
      expect(error.extras.errors).toEqual([
        expect.objectContaining({ in: 'appCardId', code: 'DUPLICATE_APP_CARD_ID' }),
      ]);
      const loser = results[0]!.status === 'rejected' ? a : b;
      expect(await store.readStream(`cards.migration-${loser}`)).toEqual([]);
      // The loser's card was never marked, so it can still be deleted.
      expect((await request('DELETE', `${BASE}/${appId}/${loser}`)).statusCode).toBe(204);
    }
  });
});
